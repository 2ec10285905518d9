// The page of `modelctx inspect --web`: it talks to the API of the binary that served it,
// with the token of its own URL, and builds everything it shows from what the server lists.
'use strict';

const token = new URLSearchParams(location.search).get('token') || '';
const $ = (selector) => document.querySelector(selector);

// Elements, made without innerHTML: nothing a server sends is ever parsed as markup.
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = value;
    else if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

async function api(path, body) {
  const init = { headers: { 'x-inspector-token': token } };
  if (body !== undefined) {
    init.method = 'POST';
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(`/api/${path}`, init);
  const text = await response.text();
  let answer;
  try {
    answer = text ? JSON.parse(text) : {};
  } catch {
    answer = { error: text };
  }
  if (!response.ok && !answer.error) answer.error = `HTTP ${response.status}`;
  return answer;
}

const json = (value) => JSON.stringify(value, null, 2);

// --- tabs ----------------------------------------------------------------------------------
for (const button of document.querySelectorAll('#tabs button')) {
  button.addEventListener('click', () => {
    for (const other of document.querySelectorAll('#tabs button')) other.classList.toggle('active', other === button);
    for (const section of document.querySelectorAll('main > section')) {
      section.hidden = section.id !== `tab-${button.dataset.tab}`;
    }
  });
}

// --- forms from JSON Schemas ----------------------------------------------------------------
function choices(schema) {
  if (Array.isArray(schema.enum)) return schema.enum.map((value, i) => [value, schema.enumNames?.[i] ?? value]);
  const options = schema.oneOf || schema.anyOf;
  if (Array.isArray(options) && options.every((option) => 'const' in option)) {
    return options.map((option) => [option.const, option.title ?? option.const]);
  }
  return null;
}

// One labelled input for property `name` of `schema`; `read()` gives its value (undefined: unset).
function field(name, schema = {}, required = false) {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  const label = el('label', {}, el('span', { text: schema.title || name }, required ? ' *' : ''));
  if (schema.description) label.append(el('em', { text: schema.description }));
  let input;
  let read;
  const options = choices(schema);
  const itemOptions = type === 'array' && schema.items ? choices(schema.items) : null;
  if (options) {
    input = el('select', { name }, required ? null : el('option', { value: '', text: '—' }));
    options.forEach(([value, text], i) => input.append(el('option', { value: String(i), text: String(text) })));
    if (schema.default !== undefined) {
      const at = options.findIndex(([value]) => value === schema.default);
      if (at >= 0) input.value = String(at);
    }
    read = () => (input.value === '' ? undefined : options[Number(input.value)][0]);
  } else if (itemOptions) {
    input = el('select', { name, multiple: true });
    itemOptions.forEach(([value, text], i) => input.append(el('option', { value: String(i), text: String(text) })));
    read = () => [...input.selectedOptions].map((option) => itemOptions[Number(option.value)][0]);
  } else if (type === 'boolean') {
    input = el('input', { name, type: 'checkbox', checked: schema.default === true });
    read = () => input.checked;
  } else if (type === 'number' || type === 'integer') {
    input = el('input', { name, type: 'number', step: type === 'integer' ? '1' : 'any', required });
    if (schema.default !== undefined) input.value = String(schema.default);
    read = () => (input.value === '' ? undefined : Number(input.value));
  } else if (type === 'string' || (type === undefined && !schema.properties)) {
    const kind = { email: 'email', uri: 'url', date: 'date' }[schema.format] || 'text';
    input = el('input', { name, type: kind, required });
    if (schema.default !== undefined) input.value = String(schema.default);
    read = () => (input.value === '' ? undefined : input.value);
  } else {
    input = el('textarea', { name, placeholder: 'JSON', required });
    if (schema.default !== undefined) input.value = json(schema.default);
    read = () => (input.value.trim() === '' ? undefined : JSON.parse(input.value));
  }
  label.append(input);
  return { node: label, read, name };
}

// The fields of an object schema, into `container`; returns a function that reads them.
function fieldsOf(schema, container) {
  container.replaceChildren();
  const required = new Set(schema?.required || []);
  const fields = Object.entries(schema?.properties || {}).map(([name, property]) =>
    field(name, property, required.has(name)),
  );
  for (const f of fields) container.append(f.node);
  return () => {
    const values = {};
    for (const f of fields) {
      const value = f.read();
      if (value !== undefined) values[f.name] = value;
    }
    return values;
  };
}

// --- results --------------------------------------------------------------------------------
function contentBlock(block) {
  const box = el('div', { class: 'block' }, el('div', { class: 'kind', text: block.type }));
  if (block.type === 'text') box.append(el('pre', { class: 'text', text: block.text }));
  else if (block.type === 'image') box.append(el('img', { src: `data:${block.mimeType};base64,${block.data}`, alt: 'image' }));
  else if (block.type === 'audio') box.append(el('audio', { controls: true, src: `data:${block.mimeType};base64,${block.data}` }));
  else if (block.type === 'resource') box.append(contents(block.resource));
  else box.append(el('pre', { text: json(block) }));
  return box;
}

function contents(item) {
  const box = el('div', { class: 'block' }, el('div', { class: 'kind', text: `${item.uri} ${item.mimeType || ''}` }));
  if ('text' in item) box.append(el('pre', { class: 'text', text: item.text }));
  else box.append(el('pre', { text: `${(item.blob || '').length} base64 characters` }));
  return box;
}

function showAnswer(target, answer, render) {
  target.replaceChildren();
  target.classList.toggle('error', Boolean(answer.error));
  if (answer.error) {
    target.append(el('pre', { class: 'error', text: answer.error }));
    return;
  }
  target.append(...render(answer.result));
}

function toolResult(result) {
  const nodes = (result.content || []).map(contentBlock);
  if (result.structuredContent !== undefined) {
    nodes.push(el('div', { class: 'block' }, el('div', { class: 'kind', text: 'structuredContent' }), el('pre', { text: json(result.structuredContent) })));
  }
  if (result.isError) nodes.unshift(el('p', { class: 'error', text: 'The tool reported an error (isError).' }));
  return nodes;
}

function listOf(container, items, describe, choose) {
  container.replaceChildren();
  for (const item of items) {
    const [title, detail, key] = describe(item);
    const row = el('li', { 'data-name': key, onclick: () => {
      for (const other of container.children) other.classList.toggle('selected', other === row);
      choose(item);
    } }, title, detail ? el('small', { text: detail }) : null);
    container.append(row);
  }
  if (!items.length) container.append(el('li', { class: 'muted', text: 'none' }));
}

// --- tools ----------------------------------------------------------------------------------
let currentTool = null;
let readTool = () => ({});

function chooseTool(tool) {
  currentTool = tool;
  $('#tool-detail').hidden = false;
  $('#tool-name').textContent = tool.title ? `${tool.title} (${tool.name})` : tool.name;
  $('#tool-description').textContent = tool.description || '';
  readTool = fieldsOf(tool.inputSchema, $('#tool-fields'));
  $('#tool-result').replaceChildren();
}

$('#tool-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!currentTool) return;
  let args;
  try {
    args = readTool();
  } catch (error) {
    showAnswer($('#tool-result'), { error: `arguments: ${error.message}` });
    return;
  }
  const progress = $('#tool-progress');
  progress.hidden = false;
  progress.removeAttribute('value');
  $('#tool-result').replaceChildren(el('p', { class: 'muted', text: 'calling…' }));
  const answer = await api('tools/call', { name: currentTool.name, arguments: args });
  progress.hidden = true;
  showAnswer($('#tool-result'), answer, toolResult);
});

// --- resources and prompts ------------------------------------------------------------------
async function read(uri) {
  $('#read-uri').value = uri;
  showAnswer($('#resource-result'), await api('resources/read', { uri }), (items) => items.map(contents));
}

$('#read-form').addEventListener('submit', (event) => {
  event.preventDefault();
  read($('#read-uri').value);
});

let currentPrompt = null;
let readPrompt = () => ({});

function choosePrompt(prompt) {
  currentPrompt = prompt;
  $('#prompt-detail').hidden = false;
  $('#prompt-name').textContent = prompt.name;
  $('#prompt-description').textContent = prompt.description || '';
  const schema = { type: 'object', properties: {}, required: [] };
  for (const argument of prompt.arguments || []) {
    schema.properties[argument.name] = { type: 'string', description: argument.description, title: argument.title };
    if (argument.required) schema.required.push(argument.name);
  }
  readPrompt = fieldsOf(schema, $('#prompt-fields'));
  $('#prompt-result').replaceChildren();
}

$('#prompt-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!currentPrompt) return;
  const answer = await api('prompts/get', { name: currentPrompt.name, arguments: readPrompt() });
  showAnswer($('#prompt-result'), answer, (messages) =>
    messages.map((message) => el('div', {}, el('h3', { text: message.role }), contentBlock(message.content))),
  );
});

// --- elicitation ----------------------------------------------------------------------------
const asked = [];
let readElicitation = () => ({});

function nextElicitation() {
  const dialog = $('#elicitation');
  if (dialog.open || !asked.length) return;
  const question = asked[0];
  $('#elicitation-message').textContent = question.message;
  readElicitation = fieldsOf(question.schema || {}, $('#elicitation-fields'));
  $('#elicitation-link').hidden = !question.url;
  if (question.url) {
    $('#elicitation-url').textContent = question.url;
    $('#elicitation-url').href = question.url;
  }
  dialog.showModal();
}

$('#elicitation').addEventListener('close', async () => {
  const question = asked.shift();
  const action = $('#elicitation').returnValue || 'cancel';
  if (question) {
    const body = { action };
    if (action === 'accept' && question.schema) body.content = readElicitation();
    await fetch(`/api/elicitations/${question.id}`, {
      method: 'POST',
      headers: { 'x-inspector-token': token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }
  nextElicitation();
});

// --- sampling: the person answers as the model -------------------------------------------------
const sampled = [];

function nextSampling() {
  const dialog = $('#sampling');
  if (dialog.open || !sampled.length) return;
  const request = sampled[0];
  $('#sampling-limit').textContent = ` (at most ${request.maxTokens} tokens)`;
  $('#sampling-system').textContent = request.systemPrompt ? `System prompt: ${request.systemPrompt}` : '';
  $('#sampling-conversation').replaceChildren(
    ...request.messages.map((message) => el('div', {}, el('h3', { text: message.role }), el('p', { text: message.text }))),
  );
  $('#sampling-answer').value = '';
  dialog.showModal();
}

$('#sampling').addEventListener('close', async () => {
  const request = sampled.shift();
  if (request) {
    const text = $('#sampling').returnValue === 'answer' ? $('#sampling-answer').value : null;
    await fetch(`/api/samplings/${request.id}`, {
      method: 'POST',
      headers: { 'x-inspector-token': token, 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });
  }
  nextSampling();
});

// --- history: filter, replay, copy as JSON or as a command line --------------------------------
// What the session drives, as `modelctx` takes it: `--url URL` or `-- COMMAND…` (set at start).
let targetWords = [];

/// A word as a POSIX shell reads it back: plain when it is plain, else single-quoted.
function shellWord(word) {
  return /^[A-Za-z0-9_.\/:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/// A request as the `modelctx` command that sends it again; null when none does.
function commandLine(message) {
  const params = message.params || {};
  const pairs = (object) => Object.entries(object || {})
    .map(([key, value]) => (typeof value === 'string' ? `${key}=${value}` : `${key}:=${JSON.stringify(value)}`));
  const commands = {
    'tools/call': () => ['tools', 'call', params.name, ...pairs(params.arguments)],
    'tools/list': () => ['tools', 'list'],
    'prompts/get': () => ['prompts', 'get', params.name, ...pairs(params.arguments)],
    'prompts/list': () => ['prompts', 'list'],
    'resources/read': () => ['resources', 'read', params.uri],
    'resources/list': () => ['resources', 'list'],
    'server/discover': () => ['discover'],
    initialize: () => ['discover'],
  };
  const words = commands[message.method];
  return words ? ['modelctx', ...words(), ...targetWords].map(shellWord).join(' ') : null;
}

/// Shows `text` under the filter, selected, and puts it on the clipboard when the page may.
function showDetail(title, text) {
  $('#message-detail-box').hidden = false;
  $('#message-detail-title').textContent = title;
  const detail = $('#message-detail');
  detail.value = text;
  detail.select();
  navigator.clipboard?.writeText(text).catch(() => {});
}

/// The buttons of a request the inspector sent: replay it, copy it as JSON or as a command.
function againButtons(event, message) {
  if (event.direction !== 'sent' || !message.method || message.id === undefined) return [];
  const button = (label, onclick) => el('button', { type: 'button', 'data-again': label, text: label, onclick });
  return [
    button('replay', async () => {
      const params = { ...(message.params || {}) };
      delete params._meta;
      const answer = await api('request', { method: message.method, params });
      showDetail(`replayed ${message.method}`, json(answer.error ? { error: answer.error } : answer.result));
    }),
    button('json', () => showDetail(`${message.method} as JSON`, json(message))),
    button('command', () => {
      const line = commandLine(message);
      showDetail(`${message.method} as a command line`, line || `no modelctx command sends ${message.method}: copy it as JSON`);
    }),
  ];
}

/// Whether a row of the log shows the filter's text.
function matchesFilter(row) {
  const wanted = $('#message-filter').value.trim();
  return !wanted || row.textContent.includes(wanted);
}

$('#message-filter').addEventListener('input', () => {
  for (const row of document.querySelectorAll('#messages tbody tr')) row.hidden = !matchesFilter(row);
});

// --- events: messages, notifications, progress, questions ------------------------------------
let messages = 0;
let notifications = 0;

function onEvent(event) {
  if (event.kind === 'message') {
    messages += 1;
    $('#message-count').textContent = String(messages);
    const message = event.message || {};
    const what = message.method || (message.id !== undefined ? `↩ ${message.id}` : '');
    const row = el('tr', {}, el('td', { text: String(messages) }), el('td', { class: event.direction, text: event.direction }),
      el('td', { text: what }), el('td', {}, el('pre', { text: json(message) })), el('td', {}, ...againButtons(event, message)));
    row.hidden = !matchesFilter(row);
    $('#messages tbody').append(row);
  } else if (event.kind === 'notification') {
    notifications += 1;
    $('#notification-count').textContent = String(notifications);
    $('#notifications').append(el('li', {}, el('strong', { text: event.method }), el('pre', { text: json(event.params ?? {}) })));
  } else if (event.kind === 'progress') {
    const progress = $('#tool-progress');
    if (event.total) {
      progress.max = event.total;
      progress.value = event.progress;
    }
    progress.title = event.message || '';
  } else if (event.kind === 'elicitation') {
    asked.push(event);
    nextElicitation();
  } else if (event.kind === 'sampling') {
    sampled.push(event);
    nextSampling();
  }
}

function listen() {
  const source = new EventSource(`/api/events?token=${encodeURIComponent(token)}`);
  source.onmessage = (message) => onEvent(JSON.parse(message.data));
}

// --- utilities: ping, log level --------------------------------------------------------------------
/// Shows what a utility did, or why it failed.
function utilityOutcome(answer, say) {
  const shown = $('#utility-result');
  shown.textContent = answer.error ? answer.error : say(answer.result);
  shown.className = answer.error ? 'error' : 'ok';
}

$('#ping').addEventListener('click', async () => {
  const answer = await api('ping', {});
  utilityOutcome(answer, (result) => `pong in ${result.milliseconds.toFixed(2)} ms`);
});

$('#log-level').addEventListener('change', async () => {
  const level = $('#log-level').value;
  if (!level) return;
  const answer = await api('log-level', { level });
  utilityOutcome(answer, (result) => `log messages at ${result.level} and above are asked for`);
});

// --- the server card (experimental) ------------------------------------------------------------
// The card the server serves beside its endpoint, and where it and the live server disagree.
async function showCard() {
  const answer = await api('card');
  if (!answer.error && !answer.result) return;
  $('#card-section').hidden = false;
  const check = $('#card-check');
  if (answer.error) {
    check.textContent = answer.error;
    check.className = 'error';
    return;
  }
  const { url, card, disagreements } = answer.result;
  const endpoints = (card.remotes || []).map((r) => `${r.url} (${(r.supportedProtocolVersions || []).join(', ')})`);
  for (const [term, value] of [['read from', url], ['name', card.name], ['version', card.version],
    ['description', card.description], ['endpoint', endpoints.join('; ')]]) {
    if (value) $('#card').append(el('dt', { text: term }), el('dd', { text: value }));
  }
  check.textContent = disagreements.length === 0
    ? 'The card agrees with the live server.'
    : disagreements.map((d) => `${d.field}: the card says ${d.card}, the server ${d.live} (the server's is used)`).join('\n');
  check.className = disagreements.length === 0 ? 'ok' : 'error';
}

// --- lists over HTTP GET (experimental) -----------------------------------------------------------
// A button per list the server serves over GET; each fetch says whether it was revalidated.
function showListsOverGet(lists) {
  $('#lists-section').hidden = false;
  const outcome = $('#list-outcome');
  for (const list of lists) {
    $('#list-buttons').append(el('button', { type: 'button', 'data-list': list, text: list, onclick: async () => {
      const answer = await api(`list-over-get/${encodeURIComponent(list)}`);
      if (answer.error) {
        outcome.textContent = answer.error;
        outcome.className = 'error';
        return;
      }
      const { result, revalidated } = answer.result;
      const key = Object.keys(result).find((k) => Array.isArray(result[k]));
      const count = key ? result[key].length : 0;
      outcome.textContent = `${list}: ${count} on the first page, ${revalidated ? 'revalidated (304: unchanged, nothing sent again)' : 'fetched (200)'}`;
      outcome.className = 'ok';
    } }));
  }
}

// --- events (experimental) -----------------------------------------------------------------------
// Each event type with a poll button; the cursor of the last poll is kept per type.
async function showEvents() {
  $('#events-section').hidden = false;
  const listed = await api('request', { method: 'events/list', params: {} });
  const result = $('#event-result');
  if (listed.error) {
    result.textContent = listed.error;
    return;
  }
  const cursors = {};
  const poll = async (type) => {
    const params = { name: type.name, arguments: {}, cursor: cursors[type.name] ?? null };
    const answer = await api('request', { method: 'events/poll', params });
    if (answer.error) {
      result.textContent = answer.error;
      return;
    }
    const first = !(type.name in cursors);
    cursors[type.name] = answer.result.cursor;
    result.textContent = first
      ? `${type.name}: polling from now on (cursor ${answer.result.cursor})`
      : `${type.name}: ${answer.result.events.length} event(s) since the last poll\n${json(answer.result.events)}`;
  };
  listOf($('#event-list'), listed.result.events || [],
    (t) => [t.name, `${(t.delivery || []).join(', ')} · ${t.description || ''}`, t.name], poll);
}

// --- interceptors (experimental) -----------------------------------------------------------------
// The server's interceptors, each chosen to invoke on a payload the person writes.
async function showInterceptors() {
  $('#interceptors-section').hidden = false;
  const listed = await api('request', { method: 'interceptors/list', params: {} });
  const result = $('#interceptor-result');
  if (listed.error) {
    result.textContent = listed.error;
    return;
  }
  let chosen = null;
  const choose = (interceptor) => {
    chosen = interceptor;
    const hook = (interceptor.hooks || [])[0];
    if (hook) {
      $('#interceptor-phase').value = hook.phase;
      const event = hook.events.find((e) => !e.includes('*'));
      if (event) $('#interceptor-event').value = event;
    }
    $('#interceptor-form').hidden = false;
  };
  listOf($('#interceptor-list'), listed.result.interceptors || [],
    (i) => [i.name, `${i.type}${i.mode ? ` (${i.mode})` : ''} · ${i.description || ''}`, i.name], choose);
  $('#interceptor-form').onsubmit = async (event) => {
    event.preventDefault();
    let payload, config;
    try {
      payload = JSON.parse($('#interceptor-payload').value);
      config = JSON.parse($('#interceptor-config').value || '{}');
    } catch (e) {
      result.textContent = `not JSON: ${e.message}`;
      return;
    }
    const params = { name: chosen.name, event: $('#interceptor-event').value, phase: $('#interceptor-phase').value, payload, config };
    const answer = await api('request', { method: 'interceptor/invoke', params });
    result.textContent = answer.error || json(answer.result);
  };
}

// --- start ----------------------------------------------------------------------------------
async function start() {
  let session = await api('session');
  for (let waited = 0; session.state === 'connecting' && waited < 600; waited += 1) {
    await new Promise((done) => setTimeout(done, 100));
    session = await api('session');
  }
  if (session.state !== 'connected') {
    $('#server').textContent = `${session.target || ''}: ${session.error || session.state}`;
    $('#server').classList.add('error');
    return;
  }
  const stdioV2 = session.transport === 'stdio-v2' ? ['--stdio-v2'] : [];
  targetWords = session.target.startsWith('http') ? ['--url', session.target] : [...stdioV2, '--', ...session.target.split(' ')];
  const info = session.serverInfo || {};
  $('#server').textContent = `${info.name || 'server'} ${info.version || ''} · ${session.protocolVersion} · ${session.target}`;
  const overview = $('#overview');
  for (const [term, value] of [['target', session.target], ['name', info.name], ['version', info.version],
    ['title', info.title], ['protocol', session.protocolVersion], ['era', session.era], ['transport', session.transport], ['instructions', session.instructions]]) {
    if (value) overview.append(el('dt', { text: term }), el('dd', { text: value }));
  }
  $('#capabilities').textContent = json(session.capabilities);
  const capabilities = session.capabilities || {};
  if ((capabilities.extensions || {})['io.modelcontextprotocol/server-card']) await showCard();
  const lists = (capabilities.extensions || {})['io.github.modelctx/http-lists'];
  if (lists && session.transport !== 'stdio') showListsOverGet(lists.lists || []);
  if ((capabilities.extensions || {})['io.modelcontextprotocol/interceptors']) await showInterceptors();
  if ((capabilities.extensions || {})['io.modelcontextprotocol/events']) await showEvents();
  if (capabilities.tools) {
    const tools = await api('tools');
    if (tools.error) $('#tool-list').replaceChildren(el('li', { class: 'error', text: tools.error }));
    else listOf($('#tool-list'), tools.result, (t) => [t.name, t.description, t.name], chooseTool);
  }
  if (capabilities.resources) {
    const listed = await api('resources');
    if (!listed.error) {
      listOf($('#resource-list'), listed.result.resources, (r) => [r.name, r.uri, r.uri], (r) => read(r.uri));
      listOf($('#template-list'), listed.result.templates, (t) => [t.name, t.uriTemplate, t.uriTemplate], (t) => {
        $('#read-uri').value = t.uriTemplate;
      });
    }
  }
  if (capabilities.prompts) {
    const prompts = await api('prompts');
    if (!prompts.error) listOf($('#prompt-list'), prompts.result, (p) => [p.name, p.description, p.name], choosePrompt);
  }
  document.body.dataset.ready = 'true';
}

listen();
start();
