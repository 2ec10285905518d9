// The Tasks tab: tools started as tasks (from the Tools tab), each watched by the inspector —
// its status and status message as they change, then its result — with cancel and result
// buttons; and the server's own list of this client's tasks (tasks/list, 2025-11-25).
'use strict';

// The tasks shown, by id: their row's cells.
const taskRows = new Map();

// The row of task `id` (made when first seen).
function taskRow(id, tool = '') {
  let row = taskRows.get(id);
  if (row) return row;
  const cells = { status: el('td'), message: el('td'), outcome: el('td'), tool: el('td', { text: tool }) };
  const button = (label, onclick) => el('button', { type: 'button', 'data-task-action': label, text: label, onclick });
  const actions = el('td', {},
    button('cancel', async () => {
      const answer = await api(`tasks/${encodeURIComponent(id)}/cancel`, {});
      if (answer.error) cells.outcome.textContent = answer.error;
    }),
    button('result', async () => {
      cells.outcome.replaceChildren(el('p', { class: 'muted', text: 'waiting for its end…' }));
      showTaskOutcome(cells, await api(`tasks/${encodeURIComponent(id)}/result`, {}));
    }));
  row = { node: el('tr', { 'data-task': id }, el('td', {}, el('code', { text: id })), cells.tool, cells.status, cells.message, cells.outcome, actions), cells };
  $('#tasks tbody').append(row.node);
  taskRows.set(id, row);
  $('#task-count').textContent = String(taskRows.size);
  return row;
}

function showTaskState(task) {
  const { cells } = taskRow(task.taskId, task.tool);
  if (task.tool) cells.tool.textContent = task.tool;
  cells.status.textContent = task.status || '';
  cells.status.className = `status ${task.status || ''}`;
  // Every status message seen, in order: the task's progress.
  const messages = cells.message.querySelectorAll('li');
  if (task.statusMessage && messages[messages.length - 1]?.textContent !== task.statusMessage) {
    if (!messages.length) cells.message.replaceChildren(el('ol', { class: 'steps' }));
    cells.message.firstChild.append(el('li', { text: task.statusMessage }));
  }
}

function showTaskOutcome(cells, answer) {
  showAnswer(cells.outcome, answer, (result) => toolResult(result, null));
}

eventHandlers.task = showTaskState;
eventHandlers['task-result'] = (event) => {
  const { cells } = taskRow(event.taskId);
  showTaskOutcome(cells, event.error ? { error: event.error } : { result: event.result });
};

// The Tools tab's "Start as a task": the task's row, or the result when the server answered at once.
$('#tool-start-task').addEventListener('click', async () => {
  if (!currentTool) return;
  const args = toolArguments();
  if (args === null) return;
  const answer = await api('tasks/start', { name: currentTool.name, arguments: args });
  if (answer.error || answer.result.done) {
    showAnswer($('#tool-result'), answer.error ? answer : { result: answer.result.done }, toolResult);
    return;
  }
  const id = answer.result.taskId;
  // Its watcher's first status may have come first.
  if (!taskRows.has(id)) showTaskState({ taskId: id, tool: currentTool.name, status: 'started' });
  $('#tool-result').replaceChildren(el('p', { class: 'ok', text: `running as task ${id}: follow it in the Tasks tab` }));
});

$('#tasks-list').addEventListener('click', async () => {
  const answer = await api('tasks');
  const outcome = $('#tasks-outcome');
  outcome.className = answer.error ? 'error' : 'ok';
  if (answer.error) {
    outcome.textContent = answer.error;
    return;
  }
  for (const task of answer.result) showTaskState(task);
  outcome.textContent = `the server lists ${answer.result.length} task(s) of this client`;
});

startSteps.push(async (session, capabilities) => {
  const runsTasks = Boolean(capabilities.tasks?.requests?.tools?.call)
    || Boolean((capabilities.extensions || {})['io.modelcontextprotocol/tasks']);
  $('#tasks-list').hidden = !capabilities.tasks?.list;
  $('#tasks-none').hidden = runsTasks;
});
