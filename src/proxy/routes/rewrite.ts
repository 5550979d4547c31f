import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BudgetPins } from '../../engine/index.js';
import { type ApiName, type InputUsage, priceOf, totalInput } from '../../providers/index.js';
import type { ProxyContext } from '../context.js';
import {
  apiError,
  BodyTooLarge,
  forward,
  readBody,
  redactedTarget,
  refuseTooLarge,
  refuseUnread,
  UNQUEUED_BYTES,
} from '../http/index.js';
import { recordAnswer, recordCalibration, recordRequest, recordRewrite } from '../metrics/index.js';
import { answerWithRecall, planRecall, RECALL_TOOL_TOKENS } from '../recall/index.js';
import { BUDGET_HEADER, parseBudgetHeader, rewriteRequest } from '../rewrite/index.js';

/**
 * A model API request: admitted when the rewrite path has room (else, past the wait limit,
 * forwarded unmodified as it streams in), read whole (413 past the limit), rewritten through
 * its conversation, forwarded with the new bytes (or the original ones when nothing changed or
 * it failed open).
 *
 * @example
 * if (api) return rewriteRoute(ctx, req, res, api, path, started);
 */
export async function rewriteRoute(
  ctx: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
  call: { api: ApiName; model?: string; advances: boolean },
  started: number,
): Promise<void> {
  const { api } = call;
  // A client (or a person debugging) can ask for one request to go through untouched.
  if (req.headers['x-spillway-bypass'] === '1')
    return forward(ctx, req, res, { api, body: undefined, started, logFields: { api, bypass: true } });
  let budgets: BudgetPins | undefined;
  try {
    budgets = parseBudgetHeader(req.headers[BUDGET_HEADER]);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    refuseUnread(req, res, 400, apiError(api, 'invalid_request_error', message));
    ctx.log({ api, method: req.method, path: redactedTarget(req.url), status: 400, error: message });
    return;
  }
  // Wait for room before reading the body: a waiting client holds its own bytes.
  const declared = Number(req.headers['content-length']);
  const bytes =
    Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, ctx.maxBodyBytes) : ctx.maxBodyBytes;
  const release = bytes <= UNQUEUED_BYTES ? () => {} : await ctx.admission.enter(bytes);
  if (!release) {
    ctx.stats.admissionTimeouts++;
    return forward(ctx, req, res, {
      api,
      body: undefined,
      started,
      logFields: { api, admission: 'waited too long; forwarded unmodified' },
    });
  }
  try {
    return await rewriteAdmitted({ ctx, req, res, call, started, budgets }, release);
  } finally {
    release();
  }
}

type Call = {
  ctx: ProxyContext;
  req: IncomingMessage;
  res: ServerResponse;
  call: { api: ApiName; model?: string; advances: boolean };
  started: number;
  budgets: BudgetPins | undefined;
};

async function rewriteAdmitted(admitted: Call, release: () => void): Promise<void> {
  const { ctx, req, res, call, started } = admitted;
  const { api } = call;
  let raw: Buffer;
  try {
    raw = await readBody(req, ctx.maxBodyBytes);
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    ctx.stats.tooLarge++;
    refuseTooLarge(
      req,
      res,
      apiError(
        api,
        'request_too_large',
        `the request body is over spillway's limit of ${ctx.maxBodyBytes} bytes; raise it with --max-body-bytes`,
      ),
    );
    ctx.log({
      api,
      method: req.method,
      path: redactedTarget(req.url),
      status: 413,
      ms: Math.round(performance.now() - started),
    });
    return;
  }
  // The request's decisions are written once its answer is out (or failed): the client never
  // waits for them, and a crash before then loses only them (their results are decided again).
  let answered = () => {};
  const answer = new Promise<void>((resolve) => {
    answered = resolve;
  });
  try {
    return await rewriteAndForward(admitted, raw, release, answer);
  } finally {
    answered();
  }
}

async function rewriteAndForward(
  { ctx, req, res, call, started, budgets }: Call,
  raw: Buffer,
  release: () => void,
  answer: Promise<void>,
): Promise<void> {
  const { api } = call;
  const first = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const out = await rewriteRequest(
    api,
    raw,
    // Claude Code names its session in a header on every request.
    {
      spillway: first('x-spillway-session'),
      client: first('x-claude-code-session-id'),
      beta: req.headers['anthropic-beta']?.toString(),
    },
    {
      sessions: ctx.sessions,
      observe: ctx.observe,
      ...(ctx.window ? { window: ctx.window } : {}),
      // The window guard keeps room for the recall tool the proxy may offer.
      ...(ctx.recallOffers ? { reserveTokens: RECALL_TOOL_TOKENS } : {}),
    },
    // count_tokens asks about a request without sending it: the conversation does not move on.
    {
      updateBoundary: call.advances,
      writeDecisionsAfter: answer,
      ...(call.model ? { model: call.model } : {}),
      ...(budgets ? { budgets } : {}),
    },
  );
  recordRewrite(ctx.stats, out);
  // count_tokens asks about a request without sending it: nothing is billed, nothing counted.
  const figures = call.advances ? out.figures : undefined;
  const { session } = out;
  if (figures && session) recordRequest(ctx.stats.savings, figures, session, new Date());
  // A conversation with markers and no recall tool of its own gets spillway's, answered here.
  const recall = ctx.recallOffers && planRecall(ctx.recallOffers, api, req.url ?? '/', out.session, out.body);
  const onUsage = (usage: InputUsage | undefined) => {
    if (usage) recordCalibration(ctx.stats, out.calibrate?.(totalInput(usage), recall?.body));
    if (figures)
      recordAnswer(
        ctx.stats.savings,
        {
          usage,
          bytesSent: (recall?.body ?? out.body).length,
          price: priceOf(out.model, ctx.sessions.prices)?.price,
          figures,
          observe: ctx.observe,
        },
        new Date(),
      );
  };
  const sent = {
    api,
    body: recall ? recall.body : out.body,
    started,
    onSent: release,
    ...(out.calibrate || figures ? { onUsage } : {}),
    logFields: {
      api,
      session: out.session,
      bytesIn: raw.length,
      bytesUp: (recall?.body ?? out.body).length,
      tokensSaved: out.tokensBefore - out.tokensAfter,
      ...(out.guard ? { windowGuard: out.guard } : {}),
      // Results sent whole: their originals could not be stashed (the store is down, full).
      ...(out.stashError
        ? { sentWhole: out.stages.collapse?.declined.stash_failed ?? 0, stashError: out.stashError }
        : {}),
      ...(out.failOpen ? { failOpen: out.failOpen.message } : {}),
      ...(out.unparseable ? { unparseable: out.unparseable } : {}),
    },
  };
  // count_tokens counts the request with the tool, as it will be sent; there is no answer to answer.
  if (recall && call.advances) return answerWithRecall(ctx, req, res, { ...sent, ...recall });
  return forward(ctx, req, res, sent);
}
