/**
 * An MCP server over Streamable HTTP, as the gateway's upstream: each message the client sends
 * is POSTed (with the session id the server gave, and the headers the user named), and what
 * the server answers, as JSON or as a stream of events, comes back message by message; a GET
 * stream carries what the server sends unasked, where it offers one.
 */

type Json = Record<string, unknown>;

// A blank line ends an event of a server-sent event stream.
const EVENT_END = /\r?\n\r?\n/;

export interface HttpUpstreamOptions {
  url: string;
  /** Sent with every request (an Authorization header, say); never logged. */
  headers?: Readonly<Record<string, string>>;
  /** Called with each message the server sends, as one line of JSON. */
  onMessage: (line: string) => Promise<void>;
  log?: (line: Record<string, unknown>) => void;
}

/**
 * The client side of Streamable HTTP, for one session.
 *
 * @example
 * const upstream = new HttpUpstream({ url: 'http://127.0.0.1:3000/mcp', onMessage: (l) => gateway.fromUpstream(l) });
 * await upstream.send('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{...}}');
 */
export class HttpUpstream {
  readonly #o: HttpUpstreamOptions;
  #session: string | undefined;
  #protocol: string | undefined;
  readonly #listening = new AbortController();
  #streamOpened = false;

  constructor(options: HttpUpstreamOptions) {
    this.#o = options;
  }

  #headers(): Record<string, string> {
    return {
      ...this.#o.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(this.#session ? { 'mcp-session-id': this.#session } : {}),
      ...(this.#protocol ? { 'mcp-protocol-version': this.#protocol } : {}),
    };
  }

  /** POSTs one client message and hands on what the server answers to it. */
  async send(line: string): Promise<void> {
    let message: Json | undefined;
    try {
      message = JSON.parse(line) as Json;
    } catch {}
    let res: Response;
    try {
      res = await fetch(this.#o.url, { method: 'POST', headers: this.#headers(), body: line });
    } catch (err) {
      return this.#fail(message, `cannot reach ${new URL(this.#o.url).origin}: ${(err as Error).message}`);
    }
    const session = res.headers.get('mcp-session-id');
    if (session) this.#session = session;
    if (!res.ok) return this.#fail(message, `the server answered HTTP ${res.status}`, await res.text());
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) await this.#events(res);
    else if (type.includes('application/json')) {
      const body = JSON.parse(await res.text()) as unknown;
      for (const m of Array.isArray(body) ? body : [body]) await this.#deliver(m);
    } else await res.body?.cancel();
    // After the handshake, a stream for what the server sends unasked, where it has one.
    if (message?.method === 'notifications/initialized' && !this.#streamOpened) {
      this.#streamOpened = true;
      void this.#listen();
    }
  }

  async #deliver(message: unknown): Promise<void> {
    const m = message as Json;
    const result = m && typeof m.result === 'object' && m.result !== null ? (m.result as Json) : undefined;
    if (typeof result?.protocolVersion === 'string' && result.serverInfo)
      this.#protocol = result.protocolVersion;
    await this.#o.onMessage(JSON.stringify(message));
  }

  /** Reads a stream of server-sent events: each event's data is one message. */
  async #events(res: Response): Promise<void> {
    const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (!reader) return;
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value;
      for (let gap = EVENT_END.exec(buffered); gap; gap = EVENT_END.exec(buffered)) {
        const event = buffered.slice(0, gap.index);
        buffered = buffered.slice(gap.index + gap[0].length);
        const data = event
          .split(/\r?\n/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data.trim() !== '') await this.#deliver(JSON.parse(data));
      }
    }
  }

  async #listen(): Promise<void> {
    try {
      const res = await fetch(this.#o.url, {
        method: 'GET',
        headers: { ...this.#headers(), accept: 'text/event-stream' },
        signal: this.#listening.signal,
      });
      if (res.ok && (res.headers.get('content-type') ?? '').includes('text/event-stream'))
        await this.#events(res);
      else await res.body?.cancel();
    } catch (err) {
      if (!this.#listening.signal.aborted)
        this.#o.log?.({ event: 'upstream_stream_failed', error: (err as Error).message });
    }
  }

  /** A request the server could not answer gets a JSON-RPC error; a notification, a log line. */
  async #fail(message: Json | undefined, why: string, body = ''): Promise<void> {
    this.#o.log?.({ event: 'upstream_failed', why, ...(body ? { body: body.slice(0, 200) } : {}) });
    if (message?.id === undefined || message.method === undefined) return;
    await this.#o.onMessage(
      JSON.stringify({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32603, message: `spillway gateway: ${why}` },
      }),
    );
  }

  /** Ends the session: the event stream closed, the server told (DELETE), where it keeps one. */
  async close(): Promise<void> {
    this.#listening.abort();
    if (!this.#session) return;
    await fetch(this.#o.url, { method: 'DELETE', headers: this.#headers() }).then(
      (r) => r.body?.cancel(),
      () => {},
    );
  }
}
