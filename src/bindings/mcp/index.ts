export { createMcpServer, callTool, SERVER_INFO } from './server.js';
export type { McpDoorDeps } from './server.js';
export { mcpTools, metaMembers } from './tools.js';
export type { ToolEntry } from './tools.js';
export { MCP_ERROR_CODES, toJsonRpcError } from './errors.js';
export { SessionHub } from './hub.js';
export type { NotifiableSession } from './hub.js';
export {
  createMcpHttp,
  jsonRpcErrorResponse,
  readMcpBody,
  SseTransport,
  MCP_HTTP_PATHS,
  MCP_EXPOSED_HEADERS,
  MCP_MAX_BODY_BYTES,
} from './http.js';
export type { McpBody, McpHttpFetch, McpHttpOptions, McpHttpDoor } from './http.js';
export { serveMcpStdio } from './stdio.js';
export { connectMcpSession } from './session.js';
export type { McpSessionHandle } from './session.js';
export { TOOL_DESCRIPTIONS, TOOL_TITLES, SERVER_INSTRUCTIONS } from './descriptions.js';
export { REGISTRY_INSTRUCTIONS } from './registry-descriptions.js';
