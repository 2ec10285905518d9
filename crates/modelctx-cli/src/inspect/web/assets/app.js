// The page of `modelctx inspect --web`: it talks to the API of the binary that served it,
// with the token of its own URL, and builds everything it shows from what the server lists.
// It shows one open server (`?server=N`, else the first); the Connect tab opens more.
'use strict';

const query = new URLSearchParams(location.search);
const token = query.get('token') || '';
const $ = (selector) => document.querySelector(selector);
// The server this page shows, once chosen (start()).
let server = null;
// What the other scripts of the page add: a handler per kind of event they show, and a step
// of start() each, given the session and the server's capabilities once connected.
const eventHandlers = {};
const startSteps = [];
// And what each does once a tool called from the Tools tab answered: (tool, arguments, result).
const afterCall = [];
// The server's tools as last listed.
let listedTools = [];

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

// A request to the inspector's API at `url`: POST with `body` as JSON when there is one.
async function call(url, body, method = body === undefined ? 'GET' : 'POST') {
  const init = { method, headers: { 'x-inspector-token': token } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
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

// A request about the server this page shows (`path` under /api/servers/N).
const api = (path, body) => call(`/api/servers/${server}/${path}`, body);

// This page again, showing server `id` (none: the first open one).
function showServer(id) {
  const next = new URLSearchParams({ token });
  if (id !== null && id !== undefined) next.set('server', String(id));
  location.search = next.toString();
}

const json = (value) => JSON.stringify(value, null, 2);

// --- tabs ----------------------------------------------------------------------------------
function showTab(name) {
  for (const button of document.querySelectorAll('#tabs button')) button.classList.toggle('active', button.dataset.tab === name);
  for (const section of document.querySelectorAll('main > section')) section.hidden = section.id !== `tab-${name}`;
}

for (const button of document.querySelectorAll('#tabs button')) {
  button.addEventListener('click', () => showTab(button.dataset.tab));
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

// A tool's result: its content, and beside it its structured content, said to conform to
// `outputSchema` when the tool has one (the client refuses a result that does not).
function toolResult(result, outputSchema = currentTool?.outputSchema) {
  const text = el('div', { class: 'column' }, (result.content || []).map(contentBlock));
  const nodes = [text];
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    const verdict = outputSchema && !result.isError
      ? el('p', { class: 'ok', 'data-output-check': 'conforms', text: '✓ conforms to the tool\'s outputSchema (checked by the client)' })
      : el('p', { class: 'muted', text: 'the tool declares no outputSchema' });
    nodes.push(el('div', { class: 'column' }, el('div', { class: 'block' },
      el('div', { class: 'kind', text: 'structuredContent' }), verdict, el('pre', { text: json(result.structuredContent) }))));
  }
  const shown = [el('div', { class: 'columns' }, nodes)];
  if (result.isError) shown.unshift(el('p', { class: 'error', text: 'The tool reported an error (isError).' }));
  return shown;
}

function listOf(container, items, describe, choose) {
  container.replaceChildren();
  for (const item of items) {
    const [title, detail, key] = describe(item);
    const row = el('li', { 'data-name': key, tabindex: 0, onclick: () => {
      for (const other of container.children) other.classList.toggle('selected', other === row);
      choose(item);
    }, onkeydown: (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        row.click();
      }
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
  $('#tool-output-schema-box').hidden = !tool.outputSchema;
  $('#tool-output-schema').textContent = tool.outputSchema ? json(tool.outputSchema) : '';
  const tasks = tool.taskSupport && tool.taskSupport !== 'forbidden';
  $('#tool-start-task').hidden = !tasks;
  $('#tool-task-support').textContent = tasks ? `as a task: ${tool.taskSupport}` : '';
  $('#tool-result').replaceChildren();
}

// The tool's arguments as its form gives them; shows why not and gives null when they are not
// JSON where they must be.
function toolArguments() {
  try {
    return readTool();
  } catch (error) {
    showAnswer($('#tool-result'), { error: `arguments: ${error.message}` });
    return null;
  }
}

$('#tool-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!currentTool) return;
  const args = toolArguments();
  if (args === null) return;
  const progress = $('#tool-progress');
  progress.hidden = false;
  progress.removeAttribute('value');
  $('#tool-result').replaceChildren(el('p', { class: 'muted', text: 'calling…' }));
  const tool = currentTool;
  const answer = await api('tools/call', { name: tool.name, arguments: args });
  progress.hidden = true;
  showAnswer($('#tool-result'), answer, toolResult);
  if (!answer.error) for (const step of afterCall) await step(tool, args, answer.result);
});

// --- completion while typing (completion/complete) --------------------------------------------
// What the server said it completes (its `completions` capability), set at start.
let completes = false;
let datalists = 0;

// Offers the server's completions of argument `name` of `reference` under `input` as its value
// changes; `others()` gives the other arguments' values (the request's context).
function completing(input, reference, name, others = () => ({})) {
  if (!completes) return;
  const list = el('datalist', { id: `completions-${(datalists += 1)}` });
  input.after(list);
  input.setAttribute('list', list.id);
  let asked = 0;
  input.addEventListener('input', async () => {
    const mine = (asked += 1);
    await new Promise((done) => setTimeout(done, 120));
    if (mine !== asked) return;
    const params = { ref: reference, argument: { name, value: input.value }, context: { arguments: others() } };
    const answer = await api('request', { method: 'completion/complete', params });
    if (mine !== asked || answer.error) return;
    list.replaceChildren(...(answer.result.completion?.values || []).map((value) => el('option', { value })));
    input.dataset.completions = String(list.children.length);
  });
}

// --- resources: read, follow, templates filled in with completion ------------------------------
let follows = false;
const updates = {};

async function read(uri) {
  $('#read-uri').value = uri;
  $('#resource-follow').hidden = !follows;
  showAnswer($('#resource-result'), await api('resources/read', { uri }), (items) => items.map(contents));
}

$('#read-form').addEventListener('submit', (event) => {
  event.preventDefault();
  read($('#read-uri').value);
});

// The resources followed, each with its count of updates and a button to stop.
function showFollowed(uris) {
  $('#followed-box').hidden = uris.length === 0;
  $('#followed').replaceChildren(...uris.map((uri) => el('li', { 'data-uri': uri },
    el('code', { text: uri }), ` · ${updates[uri] || 0} update(s) `,
    el('button', { type: 'button', text: 'Stop', onclick: async () => {
      const answer = await api('resources/unsubscribe', { uri });
      if (!answer.error) showFollowed(answer.result.uris);
    } }))));
}

$('#resource-follow').addEventListener('click', async () => {
  const answer = await api('resources/subscribe', { uri: $('#read-uri').value });
  if (answer.error) showAnswer($('#resource-result'), answer);
  else showFollowed(answer.result.uris);
});

// A followed resource changed: counted, and read again when it is the one shown.
function onResourceUpdated(event) {
  updates[event.uri] = (updates[event.uri] || 0) + 1;
  showFollowed([...document.querySelectorAll('#followed li')].map((li) => li.dataset.uri));
  if ($('#read-uri').value === event.uri) read(event.uri);
}

// A template chosen: a field per variable (completed while typing), the URI made from them.
function chooseTemplate(template) {
  const names = [...template.uriTemplate.matchAll(/\{[+#./;?&]?([^}]+)\}/g)].flatMap((m) => m[1].split(','));
  const box = $('#template-fields');
  box.replaceChildren();
  box.hidden = names.length === 0;
  const inputs = {};
  const values = () => Object.fromEntries(Object.entries(inputs).map(([name, input]) => [name, input.value]));
  const compose = () => {
    $('#read-uri').value = template.uriTemplate.replace(/\{[+#./;?&]?([^}]+)\}/g, (_, vars) =>
      vars.split(',').map((name) => encodeURIComponent(inputs[name]?.value || '')).join(','));
  };
  for (const name of names) {
    const input = el('input', { name, 'data-variable': name });
    box.append(el('label', {}, el('span', { text: name }), input));
    inputs[name] = input;
    input.addEventListener('input', compose);
    completing(input, { type: 'ref/resource', uri: template.uriTemplate }, name, values);
  }
  compose();
}

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
  for (const input of document.querySelectorAll('#prompt-fields input')) {
    completing(input, { type: 'ref/prompt', name: prompt.name }, input.name, () => {
      const values = {};
      for (const other of document.querySelectorAll('#prompt-fields input')) if (other !== input) values[other.name] = other.value;
      return values;
    });
  }
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
    await api(`elicitations/${question.id}`, body);
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
    await api(`samplings/${request.id}`, { text });
  }
  nextSampling();
});

// --- history: filter, replay, copy as JSON or as a command line --------------------------------
// What the session drives, as `modelctx` takes it: `--url URL`, `--config FILE --server NAME`
// or `-- COMMAND…` (set at start).
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

// --- performance: the session's latencies, and modelctx bench from the page --------------------
const svgNS = 'http://www.w3.org/2000/svg';
function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(svgNS, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  node.append(...children);
  return node;
}

const round = (value) => (value >= 100 ? Math.round(value) : Number(value.toPrecision(3)));

// Draws `series` ({values, titles?, className?, label}) into the 800×200 SVG `target`: bars for
// the first when `bars`, else a line each; the y axis from 0 to the largest value, in `unit`.
function chart(target, series, { bars = false, unit = '' } = {}) {
  const [width, height, left, right, top, bottom] = [800, 200, 56, 10, 12, 22];
  const max = Math.max(1e-9, ...series.flatMap((s) => s.values));
  const count = Math.max(1, ...series.map((s) => s.values.length));
  const step = (width - left - right) / count;
  const x = (i) => left + (i + 0.5) * step;
  const y = (value) => top + (height - top - bottom) * (1 - value / max);
  const nodes = [
    svg('line', { x1: left, y1: top, x2: left, y2: height - bottom, stroke: '#d8dadc' }),
    svg('line', { x1: left, y1: height - bottom, x2: width - right, y2: height - bottom, stroke: '#d8dadc' }),
    svg('text', { x: 4, y: top + 8 }, `${round(max)} ${unit}`),
    svg('text', { x: 4, y: height - bottom }, `0 ${unit}`),
  ];
  series.forEach((s, at) => {
    if (bars) {
      const w = Math.max(1, step - 1);
      s.values.forEach((value, i) => nodes.push(svg('rect', { class: 'bar', x: x(i) - w / 2, y: y(value), width: w, height: height - bottom - y(value) },
        svg('title', {}, s.titles ? s.titles[i] : String(value)))));
    } else if (s.values.length) {
      nodes.push(svg('polyline', { class: `line ${at ? 'second' : ''}`, points: s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ') }));
    }
    nodes.push(svg('text', { x: left + 8 + at * 160, y: height - 6, class: at ? 'second' : '' }, s.label));
  });
  target.replaceChildren(...nodes);
}

// Requests the page sent and not yet answered (by id), and the latencies of those answered.
const sentAt = new Map();
const latencies = [];

function showLatencies() {
  const shown = latencies.slice(-200);
  chart($('#latency-chart'), [{ values: shown.map((l) => l.ms), titles: shown.map((l) => `${l.method}: ${round(l.ms)} ms`), label: 'ms per request' }],
    { bars: true, unit: 'ms' });
  if (!latencies.length) return;
  const sorted = latencies.map((l) => l.ms).sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const slowest = latencies.reduce((a, b) => (b.ms > a.ms ? b : a));
  $('#latency-summary').textContent = `${latencies.length} answered · median ${round(at(0.5))} ms · 95th percentile ${round(at(0.95))} ms · slowest ${round(slowest.ms)} ms (${slowest.method})`;
}

// Notes when a request left and, at its answer, how long it took.
function timeMessage(event, message) {
  if (message.id === undefined || message.id === null) return;
  if (event.direction === 'sent' && message.method) sentAt.set(JSON.stringify(message.id), { method: message.method, at: event.at });
  if (event.direction === 'received' && !message.method) {
    const key = JSON.stringify(message.id);
    const sent = sentAt.get(key);
    if (!sent) return;
    sentAt.delete(key);
    latencies.push({ method: sent.method, ms: event.at - sent.at });
    if (!$('#tab-performance').hidden) showLatencies();
  }
}

document.querySelector('[data-tab=performance]').addEventListener('click', showLatencies);

// The benchmark's points, one per quarter second, and its report.
let benchPoints = [];

function showBench() {
  chart($('#bench-throughput'), [{ values: benchPoints.map((p) => p.throughput), label: 'requests per second' }], { unit: 'req/s' });
  chart($('#bench-latency'), [{ values: benchPoints.map((p) => p.p50), label: 'median (ms)' }, { values: benchPoints.map((p) => p.p99), label: '99th percentile (ms)' }], { unit: 'ms' });
}

function benchOutcome(text, failed) {
  $('#bench-result').textContent = text;
  $('#bench-result').className = failed ? 'error' : 'ok';
}

function onBench(event) {
  if (event.kind === 'bench') {
    benchPoints.push(event);
    showBench();
  } else if (event.kind === 'bench-done') {
    const r = event.report;
    const cpu = r.serverCpuUsPerRequest ? ` · server CPU ${round(r.serverCpuUsPerRequest)} µs per request` : '';
    benchOutcome(`${r.requests} requests (${r.request}, ${r.concurrency} in flight, ${r.protocolVersion}) in ${round(r.seconds)} s: ${round(r.throughput)} req/s · median ${round(r.p50Us / 1000)} ms · 99th percentile ${round(r.p99Us / 1000)} ms${cpu}`, false);
    $('#bench-run').disabled = false;
  } else if (event.kind === 'bench-failed') {
    benchOutcome(`the benchmark failed: ${event.error}`, true);
    $('#bench-run').disabled = false;
  }
}

$('#bench-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = {
    workload: $('#bench-workload').value,
    concurrency: Number($('#bench-concurrency').value),
    requests: Number($('#bench-requests').value),
    maxSeconds: Number($('#bench-seconds').value),
  };
  benchPoints = [];
  showBench();
  const answer = await api('bench', form);
  if (answer.error) {
    benchOutcome(answer.error, true);
    return;
  }
  $('#bench-run').disabled = true;
  benchOutcome('running…', false);
});

// --- events: messages, notifications, progress, questions ------------------------------------
let messages = 0;
let notifications = 0;

// Multi-round-trip requests (2026-07-28): each request the page sent, by id, with its method and
// round; and per method, the round a request answering an `input_required` result continues.
const requests = new Map();
const continuing = new Map();

// What the log says of a message beside it: a request's round past the first; an answer's
// `resultType` and cache hints (`ttlMs`, `cacheScope`).
function annotation(event, message) {
  const notes = [];
  const key = JSON.stringify(message.id);
  if (event.direction === 'sent' && message.method && message.id !== undefined) {
    const answering = message.params?.inputResponses !== undefined || message.params?.requestState !== undefined;
    const round = answering ? continuing.get(message.method) || 2 : 1;
    if (answering) continuing.delete(message.method);
    requests.set(key, { method: message.method, round });
    if (round > 1) notes.push(`round ${round} of ${message.method}`);
  } else if (event.direction === 'received' && message.result && !message.method) {
    const result = message.result;
    if (result.resultType) notes.push(result.resultType);
    if (result.ttlMs !== undefined) notes.push(`ttl ${result.ttlMs} ms`);
    if (result.cacheScope) notes.push(result.cacheScope);
    const request = requests.get(key);
    if (result.resultType === 'input_required' && request) continuing.set(request.method, request.round + 1);
  }
  return notes;
}

// A row of the message log: `event.direction` (`sent`, `received`, or between the page and an
// app), its message, and what `notes` say of it.
function logMessage(event, notes = []) {
  messages += 1;
  $('#message-count').textContent = String(messages);
  const message = event.message || {};
  const what = message.method || (message.id !== undefined ? `↩ ${message.id}` : '');
  const row = el('tr', { class: notes.some((note) => note.startsWith('round ')) ? 'round' : null },
    el('td', { text: String(messages) }), el('td', { class: event.direction, text: event.direction }),
    el('td', { text: what }),
    el('td', {}, notes.length ? el('div', { class: 'notes', text: notes.join(' · ') }) : null, el('pre', { text: json(message), tabindex: 0 })),
    el('td', {}, ...againButtons(event, message)));
  row.hidden = !matchesFilter(row);
  $('#messages tbody').append(row);
}

function onEvent(event) {
  if (event.kind === 'message') {
    const message = event.message || {};
    logMessage(event, annotation(event, message));
    timeMessage(event, message);
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
  } else if (event.kind === 'resource-updated') {
    onResourceUpdated(event);
  } else if (event.kind.startsWith('bench')) {
    onBench(event);
  } else if (eventHandlers[event.kind]) {
    eventHandlers[event.kind](event);
  }
}

function listen() {
  const source = new EventSource(`/api/servers/${server}/events?token=${encodeURIComponent(token)}`);
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

// --- connect: a command, a URL or a config file's server, in an era --------------------------
const lines = (text) => text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
const connectKind = () => document.querySelector('input[name=connect-kind]:checked').value;

for (const radio of document.querySelectorAll('input[name=connect-kind]')) {
  radio.addEventListener('change', () => {
    for (const part of document.querySelectorAll('#connect-form [data-kind]')) part.hidden = part.dataset.kind !== connectKind();
  });
}

function connectOutcome(text, failed) {
  $('#connect-result').textContent = text;
  $('#connect-result').className = failed ? 'error' : 'ok';
}

$('#connect-read').addEventListener('click', async () => {
  const answer = await call('/api/config', { path: $('#connect-config').value });
  if (answer.error) {
    connectOutcome(answer.error, true);
    return;
  }
  $('#connect-server').replaceChildren(...answer.result.map((s) => el('option', { value: s.name, text: `${s.name} (${s.reached})` })));
  connectOutcome(`${answer.result.length} server(s) in the file`, false);
});

$('#connect-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = { era: $('#connect-era').value };
  const kind = connectKind();
  if (kind === 'command') {
    form.command = [$('#connect-program').value.trim(), ...lines($('#connect-args').value)];
    form.env = lines($('#connect-env').value);
    if ($('#connect-cwd').value.trim()) form.cwd = $('#connect-cwd').value.trim();
    form.stdioV2 = $('#connect-stdio-v2').checked;
  } else if (kind === 'url') {
    form.url = $('#connect-url').value.trim();
    form.headers = lines($('#connect-headers').value);
  } else {
    form.config = $('#connect-config').value.trim();
    form.server = $('#connect-server').value;
  }
  const answer = await call('/api/servers', form);
  if (answer.error) connectOutcome(answer.error, true);
  else showServer(answer.id);
});

// The open servers in the header's choice, this page's selected; choosing one shows it.
function showOpenServers(open) {
  const choice = $('#server-choice');
  choice.replaceChildren(...open.map((s) => el('option', { value: String(s.id), text: `${s.id}: ${s.target} (${s.state})` })));
  choice.value = String(server);
  $('#server-switch').hidden = open.length === 0;
}

$('#server-choice').addEventListener('change', () => showServer($('#server-choice').value));
$('#server-close').addEventListener('click', async () => {
  await call(`/api/servers/${server}`, undefined, 'DELETE');
  showServer(null);
});

// --- start ----------------------------------------------------------------------------------
async function start() {
  const { servers: open = [] } = await call('/api/servers');
  const wanted = Number(query.get('server'));
  server = (open.find((s) => s.id === wanted) || open[0] || {}).id ?? null;
  if (server !== null && server !== wanted) history.replaceState(null, '', `?${new URLSearchParams({ token, server })}`);
  showOpenServers(open);
  if (server === null) {
    $('#server').textContent = 'no server open: connect to one';
    showTab('connect');
    document.body.dataset.ready = 'no-server';
    return;
  }
  listen();
  let session = await call(`/api/servers/${server}`);
  for (let waited = 0; session.state === 'connecting' && waited < 600; waited += 1) {
    await new Promise((done) => setTimeout(done, 100));
    session = await call(`/api/servers/${server}`);
  }
  if (session.state !== 'connected') {
    $('#server').textContent = `${session.target || ''}: ${session.error || session.state}`;
    $('#server').classList.add('error');
    document.body.dataset.failed = 'true';
    return;
  }
  targetWords = session.words;
  const info = session.serverInfo || {};
  $('#server').textContent = `${info.name || 'server'} ${info.version || ''} · ${session.protocolVersion} · ${session.target}`;
  const overview = $('#overview');
  for (const [term, value] of [['target', session.target], ['name', info.name], ['version', info.version],
    ['title', info.title], ['protocol', session.protocolVersion], ['era', session.era], ['transport', session.transport], ['instructions', session.instructions]]) {
    if (value) overview.append(el('dt', { text: term }), el('dd', { text: value }));
  }
  $('#capabilities').textContent = json(session.capabilities);
  const capabilities = session.capabilities || {};
  completes = Boolean(capabilities.completions);
  follows = Boolean(capabilities.resources?.subscribe);
  if ((capabilities.extensions || {})['io.modelcontextprotocol/server-card']) await showCard();
  const lists = (capabilities.extensions || {})['io.github.modelctx/http-lists'];
  if (lists && session.transport !== 'stdio') showListsOverGet(lists.lists || []);
  if ((capabilities.extensions || {})['io.modelcontextprotocol/interceptors']) await showInterceptors();
  if ((capabilities.extensions || {})['io.modelcontextprotocol/events']) await showEvents();
  if (capabilities.tools) {
    const tools = await api('tools');
    if (tools.error) $('#tool-list').replaceChildren(el('li', { class: 'error', text: tools.error }));
    else {
      listedTools = tools.result;
      listOf($('#tool-list'), tools.result, (t) => [t.name, t.description, t.name], chooseTool);
    }
  }
  if (capabilities.resources) {
    const listed = await api('resources');
    if (!listed.error) {
      listOf($('#resource-list'), listed.result.resources, (r) => [r.name, r.uri, r.uri], (r) => read(r.uri));
      listOf($('#template-list'), listed.result.templates, (t) => [t.name, t.uriTemplate, t.uriTemplate], chooseTemplate);
    }
  }
  if (capabilities.prompts) {
    const prompts = await api('prompts');
    if (!prompts.error) listOf($('#prompt-list'), prompts.result, (p) => [p.name, p.description, p.name], choosePrompt);
  }
  for (const step of startSteps) await step(session, capabilities);
  document.body.dataset.ready = 'true';
}

// After every script of the page has added its handlers and steps.
document.addEventListener('DOMContentLoaded', start);
