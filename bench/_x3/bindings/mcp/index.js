export { createMcpServer, callTool, SERVER_INFO } from './server.js';
export { mcpTools, metaMembers } from './tools.js';
export { MCP_ERROR_CODES, toJsonRpcError } from './errors.js';
export { SessionHub, webhookPayload } from './hub.js';
export { mountMcpHttp, webhookResourceUri, SseTransport } from './http.js';
export { serveMcpStdio } from './stdio.js';
export { TOOL_DESCRIPTIONS, TOOL_TITLES, SERVER_INSTRUCTIONS } from './descriptions.js';
//# sourceMappingURL=index.js.map