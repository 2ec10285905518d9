// MCP Apps: a tool whose definition names a `ui://` resource (`_meta.ui.resourceUri`) shows it
// under its result, in a frame sandboxed to scripts in an opaque origin, under the policy its
// `_meta.ui.csp` allows. The page is the app's host: it answers the app's JSON-RPC over
// postMessage (`ui/initialize`, the tool's input and result once the app is initialized, calls
// of the tools the app may call, resource reads, links and messages shown for the person to
// act on) and logs every message of the bridge in the Messages tab.
'use strict';

const APPS_PROTOCOL = '2026-01-26';
// The frame's height, at most, whatever the app asks.
const MAX_APP_HEIGHT = 1200;
// How long an app has to begin the handshake before it is given the tool's result anyway (an
// app written without it listens for the notifications only).
const HANDSHAKE_WAIT_MS = 500;

// The app shown: its frame, the tool, its arguments and result, and how far the handshake went.
let shownApp = null;

const uiOf = (tool) => tool?._meta?.ui?.resourceUri || tool?._meta?.['ui/resourceUri'];
// Whether an app may call `tool`: one whose visibility names the app, or says nothing.
const appMayCall = (tool) => !tool?._meta?.ui?.visibility || tool._meta.ui.visibility.includes('app');

function appNote(text, className = 'muted') {
  $('#app-notes').append(el('li', { class: className, text }));
}

function toApp(message) {
  if (!shownApp) return;
  logMessage({ direction: 'page → app', message }, ['MCP Apps']);
  shownApp.frame.contentWindow.postMessage(message, '*');
}

const reply = (id, result) => toApp({ jsonrpc: '2.0', id, result });
const refuse = (id, code, message) => toApp({ jsonrpc: '2.0', id, error: { code, message } });

// The tool's input and result, once.
function deliverTool() {
  if (!shownApp || shownApp.delivered) return;
  shownApp.delivered = true;
  toApp({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: shownApp.input } });
  toApp({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: shownApp.result });
}

function hostContext() {
  return {
    theme: 'light', displayMode: 'inline', availableDisplayModes: ['inline'], platform: 'web',
    locale: navigator.language, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    containerDimensions: { maxHeight: MAX_APP_HEIGHT },
    toolInfo: { tool: { name: shownApp.tool.name } },
  };
}

// What the page answers each of the app's messages.
const appMethods = {
  'ui/initialize': (m) => {
    shownApp.initializing = true;
    reply(m.id, {
      protocolVersion: APPS_PROTOCOL,
      hostInfo: { name: 'modelctx inspect', version: '' },
      hostCapabilities: { serverTools: {}, serverResources: {}, openLinks: {}, logging: {} },
      hostContext: hostContext(),
    });
  },
  'ui/notifications/initialized': () => deliverTool(),
  'ui/notifications/size-changed': (m) => {
    const height = Number(m.params?.height);
    if (Number.isFinite(height) && height > 0) shownApp.frame.style.height = `${Math.min(height, MAX_APP_HEIGHT)}px`;
  },
  'tools/call': async (m) => {
    const name = m.params?.name;
    const tool = listedTools.find((t) => t.name === name);
    if (!tool || !appMayCall(tool)) {
      refuse(m.id, -32602, `the app may not call ${JSON.stringify(name)}: ${tool ? 'its visibility leaves the app out' : 'the server lists no such tool'}`);
      return;
    }
    const answer = await api('tools/call', { name, arguments: m.params?.arguments || {} });
    if (answer.error) refuse(m.id, -32603, answer.error);
    else reply(m.id, answer.result);
  },
  'resources/read': async (m) => {
    const answer = await api('resources/read', { uri: m.params?.uri });
    if (answer.error) refuse(m.id, -32603, answer.error);
    else reply(m.id, { contents: answer.result });
  },
  'ui/open-link': (m) => {
    const url = String(m.params?.url || '');
    const item = el('li', {}, 'The app asks to open ', el('a', { href: url, target: '_blank', rel: 'noopener noreferrer', text: url }));
    if (!/^https?:/i.test(url)) item.replaceChildren(`The app asked to open ${url}: not a web link, not shown as one.`);
    $('#app-notes').append(item);
    reply(m.id, {});
  },
  'ui/message': (m) => {
    const text = (Array.isArray(m.params?.content) ? m.params.content : [m.params?.content]).map((c) => c?.text || '').join(' ');
    appNote(`The app says, as the ${m.params?.role || 'user'}: ${text}`);
    reply(m.id, {});
  },
  'ui/update-model-context': (m) => {
    appNote(`The app updates the model's context: ${JSON.stringify(m.params)}`);
    reply(m.id, {});
  },
  'notifications/message': (m) => appNote(`The app logs (${m.params?.level || 'info'}): ${JSON.stringify(m.params?.data)}`),
  ping: (m) => reply(m.id, {}),
};

window.addEventListener('message', (event) => {
  if (!shownApp || event.source !== shownApp.frame.contentWindow) return;
  const message = event.data;
  if (!message || typeof message !== 'object' || message.jsonrpc !== '2.0') return;
  logMessage({ direction: 'app → page', message }, ['MCP Apps']);
  if (!message.method) return;
  const handle = appMethods[message.method];
  if (handle) handle(message);
  else if (message.id !== undefined) refuse(message.id, -32601, `the inspector's page does not handle ${message.method}`);
});

// A tool with an app answered: its app, framed.
afterCall.push(async (tool, input, result) => {
  const uri = uiOf(tool);
  const box = $('#app-box');
  box.hidden = !uri;
  shownApp = null;
  $('#app-frame-slot').replaceChildren();
  $('#app-notes').replaceChildren();
  if (!uri) return;
  $('#app-uri').textContent = uri;
  const answer = await api('apps/open', { uri });
  if (answer.error) {
    $('#app-frame-slot').append(el('p', { class: 'error', text: answer.error }));
    return;
  }
  const frame = el('iframe', { id: 'app-frame', sandbox: 'allow-scripts', title: `The app ${uri}`, src: answer.result.view });
  shownApp = { frame, tool, input, result, initializing: false, delivered: false };
  const shown = shownApp;
  frame.addEventListener('load', () => setTimeout(() => {
    if (shownApp === shown && !shown.initializing) deliverTool();
  }, HANDSHAKE_WAIT_MS));
  $('#app-policy').textContent = answer.result.policy;
  $('#app-frame-slot').append(frame);
});
