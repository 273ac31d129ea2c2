// The test host's page script (bundled for the browser by host.ts): the official host-side bridge
// of @modelcontextprotocol/ext-apps, a view in a sandboxed iframe, and the host's duties (calls to
// the server, links, messages, model context) handed to the test through exposed functions.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

window.startHost = async ({ html, input, result, context, width }) => {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('title', 'MCP App view');
  frame.style.cssText = `border:0;width:${width}px;height:200px;display:block`;
  document.body.replaceChildren(frame);
  const bridge = new AppBridge(
    null,
    { name: 'usp-test-host', version: '1.0.0' },
    { serverTools: {}, openLinks: {}, message: { text: {} }, updateModelContext: { text: {} } },
    { hostContext: context },
  );
  bridge.oncalltool = (params) => window.hostCallTool(params);
  bridge.onopenlink = async (params) => (await window.hostOpenLink(params), {});
  bridge.onmessage = async (params) => (await window.hostMessage(params), {});
  bridge.onupdatemodelcontext = async (params) => (await window.hostModelContext(params), {});
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${height}px`;
  };
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  // Listen before the view loads: its ui/initialize is the first thing its script sends.
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: input });
  await bridge.sendToolResult(result);
  window.hostBridge = bridge;
  return bridge.getAppVersion?.() ?? null;
};
