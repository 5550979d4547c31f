import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import {
  type ApiName,
  type Dialect,
  type InputUsage,
  inputUsageOf,
  type Json,
  PROVIDERS,
  type StreamRelay,
  sseEvents,
  sumUsage,
  type TurnPart,
} from '../../providers/index.js';
import type { ProxyContext } from '../context.js';
import { apiError, redactedTarget, responseHeaders, sendJson } from '../http/index.js';
import { answerCalls } from './answer-calls.js';
import { askUpstream, MAX_ANSWER_BYTES, readAnswer } from './ask-upstream.js';
import { appendTurn } from './body-bytes.js';
import { DIALECTS } from './dialects.js';
import { decideTurn } from './turn.js';

/** One request whose model may call the offered tool. */
export interface RecallJob {
  api: ApiName;
  /** The request as it goes upstream, the tool offered. */
  body: Buffer;
  parsed: Json;
  streaming: boolean;
  /** The ids this conversation's markers name: the only ones recalled. */
  allowed: ReadonlySet<string>;
  started: number;
  logFields: Record<string, unknown>;
  onSent?: () => void;
  /** The first round's input usage: the request the rewrite estimated. */
  onUsage?: (usage: InputUsage | undefined) => void;
}

/** State of one request over its rounds. */
interface Rounds {
  ctx: ProxyContext;
  req: IncomingMessage;
  res: ServerResponse;
  job: RecallJob;
  dialect: Dialect;
  signal: AbortSignal;
  body: Buffer;
  usage: unknown;
  /** What earlier rounds said besides their recall calls (a whole answer carries it). */
  said: TurnPart[];
}

/**
 * Answers a request whose model was offered `spillway_expand`: asks the upstream, answers the
 * model's recall calls from the store and asks again (as many rounds as it needs, within the
 * bound), and gives the client the last answer with every round's usage summed, as one answer or
 * one stream. A first answer that is not a success goes back as it came.
 *
 * @example
 * return answerWithRecall(ctx, req, res, job);
 */
export async function answerWithRecall(
  ctx: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
  job: RecallJob,
): Promise<void> {
  const controller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) controller.abort();
  };
  res.on('close', onClose);
  const state: Rounds = {
    ...{ ctx, req, res, job, signal: controller.signal, body: job.body },
    ...{ dialect: DIALECTS[job.api], usage: undefined, said: [] },
  };
  const log = (fields: Record<string, unknown>) =>
    ctx.log({
      ...job.logFields,
      method: req.method,
      path: redactedTarget(req.url),
      ...fields,
      ms: Math.round(performance.now() - job.started),
    });
  try {
    const rounds = job.streaming ? await streamRounds(state) : await wholeRounds(state);
    log({ status: res.statusCode, recallRounds: rounds });
  } catch (err) {
    job.onSent?.();
    const reason = (err as { code?: string }).code ?? (err as Error).message;
    if (controller.signal.aborted) log({ status: 499, aborted: true });
    else if (res.headersSent) {
      ctx.stats.upstreamErrors++;
      log({ status: res.statusCode, error: `recall round failed: ${reason}` });
      res.destroy(err as Error);
    } else {
      ctx.stats.upstreamErrors++;
      sendJson(
        res,
        502,
        apiError(job.api, 'upstream_unreachable', `spillway could not complete the request: ${reason}`),
      );
      log({ status: 502, error: reason });
    }
  } finally {
    res.off('close', onClose);
    // Whatever an early end left unread upstream is let go.
    controller.abort();
  }
}

/** Sends an answer that is not the model's success back as it came; true when it was one. */
async function passedOn(state: Rounds, answer: Dispatcher.ResponseData, round: number): Promise<boolean> {
  const type = String(answer.headers['content-type'] ?? '');
  const expected = state.job.streaming ? 'text/event-stream' : 'json';
  if (answer.statusCode < 300 && type.includes(expected)) return false;
  if (round > 0) throw new Error(`the upstream answered round ${round + 1} with status ${answer.statusCode}`);
  const { res } = state;
  res.writeHead(answer.statusCode, responseHeaders(answer.headers));
  for await (const chunk of answer.body as AsyncIterable<Buffer>)
    if (!res.write(chunk)) await once(res, 'drain', { signal: state.signal });
  res.end();
  return true;
}

async function ask(state: Rounds, round: number): Promise<Dispatcher.ResponseData> {
  const answer = await askUpstream(state.ctx, state.req, state.job.api, state.body, state.signal);
  if (round === 0) state.job.onSent?.();
  return answer;
}

/** Learns the first round's input usage (bookkeeping: after the answer, never throws). */
function learn(state: Rounds, usage: unknown): void {
  const { job } = state;
  setImmediate(() => job.onUsage?.(inputUsageOf(state.dialect.answerWith(usage))));
}

/** The next round's body, or undefined when the turn goes to the agent. */
async function nextBody(state: Rounds, parts: TurnPart[], round: number) {
  const decision = decideTurn(parts, round);
  if (decision.action !== 'recall') return { decision };
  const { dialect, job } = state;
  const calls = decision.history.filter((p) => p.kind === 'recall').map((p) => dialect.callOf(p));
  const answers = await answerCalls(state.ctx.store, calls, job.allowed, round);
  state.said.push(...decision.history.filter((p) => p.kind !== 'recall'));
  state.body = appendTurn(
    state.body,
    job.parsed,
    PROVIDERS.of(job.api).conversationKey,
    dialect.followUp(decision.history, answers),
  );
  return { decision };
}

/** Rounds of whole answers: the last one, with what earlier rounds said, goes to the client. */
async function wholeRounds(state: Rounds): Promise<number> {
  const { dialect, res } = state;
  for (let round = 0; ; round++) {
    const answer = await ask(state, round);
    if (await passedOn(state, answer, round)) return round;
    const bytes = await readAnswer(answer.body as AsyncIterable<Buffer>);
    if (!bytes) throw new Error('the answer is over the size spillway reads for recall calls');
    const parsed = JSON.parse(bytes.toString('utf8')) as Json;
    const usage = dialect.usageOf(parsed);
    if (round === 0) learn(state, usage);
    state.usage = sumUsage(state.usage, usage);
    const parts = dialect.partsOf(parsed);
    const { decision } = await nextBody(state, parts, round);
    if (decision.action === 'recall') continue;
    const shown = decision.action === 'strip' ? decision.kept : parts;
    const end = {
      cut: decision.action === 'strip',
      agentCalls: decision.action === 'strip' && decision.agentCalls,
    };
    const final = JSON.stringify(dialect.finish(parsed, [...state.said, ...shown], end, state.usage));
    const headers = {
      ...responseHeaders(answer.headers),
      'content-length': String(Buffer.byteLength(final)),
    };
    res.writeHead(answer.statusCode, headers);
    res.end(final);
    return round + 1;
  }
}

/** Rounds of one stream: events pass as they come until a recall starts; the client sees one stream. */
async function streamRounds(state: Rounds): Promise<number> {
  const { dialect, res, signal } = state;
  const relay: StreamRelay = dialect.relay();
  const write = async (text: string) => {
    if (text !== '' && !res.write(text)) await once(res, 'drain', { signal });
  };
  for (let round = 0; ; round++) {
    const answer = await ask(state, round);
    if (await passedOn(state, answer, round)) return round;
    if (round === 0) {
      const headers = responseHeaders(answer.headers);
      delete headers['content-length'];
      res.writeHead(answer.statusCode, headers);
    }
    let bytes = 0;
    for await (const ev of sseEvents(answer.body as AsyncIterable<Buffer>)) {
      // What a round holds for its history grows with its stream: a stream no model writes ends it.
      bytes += ev.raw.length;
      if (bytes > MAX_ANSWER_BYTES)
        throw new Error('the answer is over the size spillway reads for recall calls');
      await write(relay.event(ev, round));
    }
    const { parts, usage } = relay.endRound();
    relay.ends.roundEnded();
    if (round === 0) learn(state, usage);
    state.usage = sumUsage(state.usage, usage);
    const { decision } = await nextBody(state, parts, round);
    if (decision.action === 'recall') {
      relay.ends.nextRound();
      await write(relay.between?.() ?? '');
      continue;
    }
    const end = {
      cut: decision.action === 'strip',
      agentCalls: decision.action === 'strip' && decision.agentCalls,
    };
    await write(relay.ends.asCame(end) ?? relay.finish(end, state.usage));
    res.end();
    return round + 1;
  }
}
