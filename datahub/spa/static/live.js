// The live events (GET /api/v1/events/stream, docs/guides/events.rst) while someone is
// logged in: one stream at a time, read as it comes and opened again, from the last event
// seen (Last-Event-ID), after the stream's `retry` wait when it ends (its token expired or
// was revoked, or the server stopped). The browser's EventSource cannot send the access
// token, so the stream is a fetch through datahub-client.js (a 401 there renews the token;
// a refused renewal ends the session, and the app stops following) and its Server-Sent
// Events are parsed here. The events are handed on in bursts: at most one every
// COALESCE_MS, the next once the one before was handled.
import { DatahubError } from "./datahub-client.js";

const COALESCE_MS = 300;
const RETRY_MS = 2000; // the wait before opening again, until the stream says its own
const MAX_WAIT_MS = 60000; // the longest wait after openings that failed in a row
// Answers after which opening again cannot help: no session (the client has told the app
// when a renewal was refused), events not readable, no stream on this service.
const FINAL = new Set([401, 403, 404, 405, 422]);

let following = null; // the one stream followed: see follow()

/** Follow the events from now on: `onEvents(events)` (CloudEvents, in order) is called
 *  with each burst and awaited. A stream followed before is stopped first. */
export function follow(api, onEvents) {
  stop();
  const state = {
    controller: new AbortController(), // aborts the open stream on stop()
    stopped: false,
    lastEventId: null, // where to resume
    retry: RETRY_MS,
    pause: null, // {timer, wake}: the wait before opening again
    burst: null, // the timer of the next burst
  };
  following = state;
  keepOpen(api, state, inBursts(state, onEvents));
}

/** Stop following (a logout, the session's end): the stream is closed, nothing pending is
 *  handed on and nothing is opened again. */
export function stop() {
  if (!following) return;
  const state = following;
  following = null;
  state.stopped = true;
  state.controller.abort();
  clearTimeout(state.burst);
  if (state.pause) {
    clearTimeout(state.pause.timer);
    state.pause.wake();
  }
}

/** Whether a stream is followed (opened, or about to be opened again). */
export function isFollowing() {
  return following !== null;
}

async function keepOpen(api, state, onEvent) {
  let failures = 0; // openings in a row that failed
  while (!state.stopped) {
    let response;
    try {
      response = await api.openEventStream({
        lastEventId: state.lastEventId, signal: state.controller.signal,
      });
    } catch (error) {
      if (state.stopped) return;
      if (error instanceof DatahubError && FINAL.has(error.status)) {
        if (following === state) following = null;
        return;
      }
      failures += 1; // 429 (too many streams), 5xx or unreachable after the client's retries
      await pause(state, Math.min(state.retry * 2 ** failures, MAX_WAIT_MS));
      continue;
    }
    failures = 0;
    try {
      await read(response, state, onEvent);
    } catch (error) {
      // The connection broke, or stop() aborted it: either way this stream is over.
    }
    if (!state.stopped) await pause(state, state.retry);
  }
}

function pause(state, ms) {
  return new Promise((resolve) => {
    state.pause = { timer: setTimeout(resolve, ms), wake: resolve };
  }).finally(() => { state.pause = null; });
}

// Server-Sent Events (https://html.spec.whatwg.org/multipage/server-sent-events.html):
// lines "field: value", a blank line ends a message, a line starting with ":" is a comment
// (a heartbeat, or why the stream ends). The fields read are those the service sends: id,
// data (one line or more, joined by "\n": a CloudEvent's JSON) and retry (ms).
async function read(response, state, onEvent) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const message = { id: null, data: [] };
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done || state.stopped) return; // an unfinished message is dropped
    buffer += value;
    // A "\r" at the end may be the first half of "\r\n": it waits for the next chunk.
    const end = buffer.endsWith("\r") ? buffer.length - 1 : buffer.length;
    const lines = buffer.slice(0, end).split(/\r\n|\r|\n/);
    buffer = lines.pop() + buffer.slice(end); // the last line is not complete yet
    for (const line of lines) {
      if (line === "") dispatch(message, state, onEvent);
      else if (!line.startsWith(":")) readField(line, message, state);
    }
  }
}

function readField(line, message, state) {
  const colon = line.indexOf(":");
  const name = colon === -1 ? line : line.slice(0, colon);
  let value = colon === -1 ? "" : line.slice(colon + 1);
  if (value.startsWith(" ")) value = value.slice(1);
  if (name === "data") message.data.push(value);
  else if (name === "id" && !value.includes("\0")) message.id = value;
  else if (name === "retry" && /^\d+$/.test(value)) state.retry = Number(value);
}

// A whole message: its id is where to resume from now on; its data, if any, is handed on.
function dispatch(message, state, onEvent) {
  if (message.id !== null) state.lastEventId = message.id;
  const data = message.data.join("\n");
  message.id = null;
  message.data = [];
  if (!data) return;
  let event;
  try {
    event = JSON.parse(data);
  } catch (error) {
    return; // not a CloudEvent: nothing the app can use
  }
  onEvent(event);
}

// Collects the events and hands them on COALESCE_MS after the first of a burst; while a
// burst is handled the next one waits.
function inBursts(state, onEvents) {
  let pending = [];
  let handling = false;
  const schedule = () => { state.burst = setTimeout(handle, COALESCE_MS); };
  async function handle() {
    state.burst = null;
    const events = pending;
    pending = [];
    handling = true;
    try {
      await onEvents(events);
    } finally {
      handling = false;
      if (pending.length && !state.stopped) schedule();
    }
  }
  return (event) => {
    if (state.stopped) return;
    pending.push(event);
    if (!handling && state.burst === null) schedule();
  };
}
