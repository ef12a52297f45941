/**
 * The live events (GET /api/v1/events/stream, Server-Sent Events) while someone is signed
 * in. The browser's EventSource cannot send the bearer token, so the stream is read through
 * the session's fetch; it is opened again from the last event seen (Last-Event-ID) after
 * the stream's `retry` wait, and events arrive to listeners in bursts.
 */
import { sessionFetch } from './session';

export interface LiveEvent {
  id: string;
  type: string;
  time?: string;
  subject?: string;
  data?: Record<string, unknown>;
}

type Listener = (events: LiveEvent[]) => void;

const COALESCE_MS = 300;
const MAX_WAIT_MS = 60_000;
const FINAL = new Set([401, 403, 404]);

export class EventFollower {
  private controller = new AbortController();
  private stopped = false;
  private retryMs = 2000;
  private lastEventId: string | null = null;
  private pending: LiveEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private listeners = new Set<Listener>();

  listen(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    void this.keepOpen();
  }

  stop(): void {
    this.stopped = true;
    this.controller.abort();
    if (this.timer) clearTimeout(this.timer);
  }

  private async keepOpen(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let response: Response;
      try {
        const headers: Record<string, string> = { Accept: 'text/event-stream' };
        if (this.lastEventId !== null) headers['Last-Event-ID'] = this.lastEventId;
        response = await sessionFetch('/api/v1/events/stream', {
          headers,
          signal: this.controller.signal,
        });
      } catch {
        if (this.stopped) return;
        failures += 1;
        await this.pause(Math.min(this.retryMs * 2 ** failures, MAX_WAIT_MS));
        continue;
      }
      if (FINAL.has(response.status)) return;
      if (!response.ok || !response.body) {
        failures += 1;
        await this.pause(Math.min(this.retryMs * 2 ** failures, MAX_WAIT_MS));
        continue;
      }
      failures = 0;
      try {
        await this.read(response.body);
      } catch {
        // the connection broke, or stop() aborted it
      }
      if (!this.stopped) await this.pause(this.retryMs);
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  // Lines "field: value"; a blank line ends a message; ":" starts a comment (heartbeat).
  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>).getReader();
    let buffer = '';
    let id: string | null = null;
    let data: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done || this.stopped) return;
      buffer += value;
      const end = buffer.endsWith('\r') ? buffer.length - 1 : buffer.length;
      const lines = buffer.slice(0, end).split(/\r\n|\r|\n/);
      buffer = (lines.pop() ?? '') + buffer.slice(end);
      for (const line of lines) {
        if (line === '') {
          if (id !== null) this.lastEventId = id;
          if (data.length) this.receive(data.join('\n'));
          id = null;
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const name = colon === -1 ? line : line.slice(0, colon);
        let field = colon === -1 ? '' : line.slice(colon + 1);
        if (field.startsWith(' ')) field = field.slice(1);
        if (name === 'data') data.push(field);
        else if (name === 'id' && !field.includes('\0')) id = field;
        else if (name === 'retry' && /^\d+$/.test(field)) this.retryMs = Number(field);
      }
    }
  }

  private receive(text: string): void {
    try {
      this.pending.push(JSON.parse(text) as LiveEvent);
    } catch {
      return;
    }
    if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        const events = this.pending;
        this.pending = [];
        this.listeners.forEach((listener) => listener(events));
      }, COALESCE_MS);
    }
  }
}

/** The generated query ids an event may have changed (queries are refetched if shown). */
export function touchedQueries(type: string): RegExp {
  if (type.startsWith('datahub.run.')) return /Run|Pipeline|Event|Lineage|Dataset|Version/;
  if (type.startsWith('datahub.pipeline.')) return /Pipeline|Event/;
  if (type.startsWith('datahub.dataset.')) return /Dataset|Version|Lineage|Diff|Event|Collection|Usage/;
  return /Event/;
}
