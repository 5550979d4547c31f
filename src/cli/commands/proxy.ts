import { SpillwayError } from '../../errors.js';
import { gatewayRoutes, startExtProc } from '../../gateways/index.js';
import { PROVIDERS } from '../../providers/index.js';
import {
  DEFAULT_ADMISSION,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_PORT,
  DEFAULT_UPSTREAMS,
  type McpHandler,
  type RunningProxy,
  startProxy,
} from '../../proxy/index.js';
import { readKeptUpstreams, type Store } from '../../store/index.js';
import { userRecallToken } from '../../store/recall/index.js';
import { intOption, parseCommandArgs } from '../args.js';
import { clientSetup } from '../client-setup.js';
import { CONFIG_HELP, CONFIG_OPTIONS, configFromOptions } from '../config-options.js';
import { helpText } from '../help.js';
import { type CliIo, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, storeFromOptions } from '../store-option.js';
import { version } from '../version.js';

/** One `--<key>-upstream` flag per provider (its upstreams.json key), in registry order. */
const UPSTREAM_FLAGS = PROVIDERS.upstreamKeys.map((key) => ({ key, flag: `${key}-upstream` }));

const UPSTREAM_HELP = UPSTREAM_FLAGS.map(({ key, flag }, i) =>
  i === 0
    ? `  --${flag} URL  default: the endpoint "spillway setup" kept (a gateway the client was
                             pointed at, in $SPILLWAY_HOME/upstreams.json), else ${DEFAULT_UPSTREAMS[key]}`
    : `  --${flag} URL  default: likewise, else ${DEFAULT_UPSTREAMS[key]}`,
).join('\n');

export const PROXY_HELP =
  helpText(`usage: spillway proxy [--port ${DEFAULT_PORT}] [--host 127.0.0.1] [--allow-host NAME] [--preset P] [--config FILE]
                      [--observe] [--dir D | --store URL]
                      ${UPSTREAM_FLAGS.map(({ flag }) => `[--${flag} URL]`).join(' ')}
                      [--token T] [--max-body-bytes N] [--max-rewrites N]
                      [--max-rewrite-bytes N] [--rewrite-wait-ms N] [--window N] [--quiet] [--open-recall]
                      [--no-recall-tool] [--ext-proc-port N]

Runs an HTTP proxy between your coding agent and its model API. Anthropic Messages, OpenAI
Chat Completions, OpenAI Responses and Gemini generateContent requests have their oversized tool results shrunk
(originals kept for recall); everything else, streams included, passes through untouched.
WebSocket handshakes get 426 (clients such as Codex then use HTTP). AI gateways call it too:
/v1/compress and /v1/retrieve (LiteLLM, Kong), /portkey/hook (Portkey); see docs/gateways.md.
Point your agent at it:
${clientSetup(`http://127.0.0.1:${DEFAULT_PORT}`)}
Options:
  --port N                   port (default ${DEFAULT_PORT}, or $SPILLWAY_PORT; 0 picks a free one)
  --host H                   address (default 127.0.0.1; anything else needs --token)
  --allow-host NAME          also answer requests that name the proxy NAME in their Host header
                             (repeatable; by default only localhost, 127.0.0.1, ::1 and --host:
                             a web page cannot reach the proxy under a name of its own)
${CONFIG_HELP}
  --observe                  forward everything untouched; /stats shows what would be saved
${STORE_HELP}
${UPSTREAM_HELP}
  --token T                  required on every route but /healthz, as x-spillway-token: T
                             (or Authorization: Bearer T on /expand, /mcp, /stats; or $SPILLWAY_TOKEN)
  --max-body-bytes N         refuse larger request bodies with 413 (default ${DEFAULT_MAX_BODY_BYTES})
  --max-rewrites N           rewrites at once (default ${DEFAULT_ADMISSION.maxConcurrent}); more wait their turn
  --max-rewrite-bytes N      request bytes being rewritten at once (default ${DEFAULT_ADMISSION.maxBytes})
  --rewrite-wait-ms N        a request that waited this long goes upstream unmodified (default ${DEFAULT_ADMISSION.maxWaitMs})
  --window N                 treat every model's context window as N tokens (default: the model
                             table's; the window guard keeps each request within it)
  --no-recall-tool           do not offer spillway_expand to a conversation with markers whose
                             client has no such tool (by default the proxy offers it and answers
                             the model's calls itself; see docs/proxy.md)
  --ext-proc-port N          also serve Envoy's ext_proc filter (gRPC, loopback) on port N: model
                             request bodies collapsed as /v1/compress does (docs/gateways.md)
  --quiet                    no per-request log lines on stderr
  --open-recall              let anyone on this machine use the proxy: /stats, /metrics, /expand,
                             /mcp and the dashboard with no token, and model requests from any
                             local user. By default those routes need the token in
                             ~/.spillway/token, which only you can read, and on Linux a model
                             request from another user's process gets 403 (nothing of it is
                             read, forwarded or stashed into your store)
  -h, --help                 show this help

Routes: /healthz, /stats (JSON), /metrics (Prometheus), /expand?id=ID&offset=N, /mcp (MCP).
Other local users: see "Only your user's model requests" in docs/proxy.md.
`);

/** /mcp, with the MCP SDK loaded on its first request rather than before the proxy listens. */
function lazyMcp(store: Store): McpHandler {
  let handler: Promise<McpHandler> | undefined;
  return async (req, res, body) => {
    handler ??= import('../../mcp/server/http.js').then((m) => m.mcpHttpHandler(store, version()));
    return (await handler)(req, res, body);
  };
}

/** The endpoints setup kept (a gateway the client was pointed at), then the flags. */
function upstreamsOf(values: Record<string, unknown>, env: NodeJS.ProcessEnv) {
  const flag = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const given = UPSTREAM_FLAGS.flatMap(({ key, flag: name }) => {
    const url = flag(name);
    return url ? [[key, url]] : [];
  });
  return { ...readKeptUpstreams(env), ...Object.fromEntries(given) };
}

function admissionOf(values: Record<string, unknown>) {
  const option = (flag: string, min: number) =>
    intOption(`--${flag}`, values[flag] as string | undefined, min);
  return {
    maxConcurrent: option('max-rewrites', 1) ?? DEFAULT_ADMISSION.maxConcurrent,
    maxBytes: option('max-rewrite-bytes', 1) ?? DEFAULT_ADMISSION.maxBytes,
    maxWaitMs: option('rewrite-wait-ms', 0) ?? DEFAULT_ADMISSION.maxWaitMs,
  };
}

/** Envoy's ext_proc server beside the proxy, when --ext-proc-port asks for it. */
async function extProcOf(
  n: number | undefined,
  running: { proxy: RunningProxy; store: Store },
  token: string | undefined,
  io: CliIo,
) {
  if (n === undefined) return undefined;
  const { proxy, store } = running;
  let extProc: Awaited<ReturnType<typeof startExtProc>>;
  try {
    extProc = await startExtProc({
      compressUrl: `${proxy.url}/v1/compress`,
      port: n,
      ...(token ? { token } : {}),
    });
  } catch (err) {
    // Its port taken: the proxy does not stay up half-configured.
    await proxy.close();
    await store.close?.();
    throw err;
  }
  await write(
    io.stdout,
    `Envoy ext_proc (gRPC) on ${extProc.url}${token ? ' (send x-spillway-token in grpc_service.initial_metadata)' : ''}\n`,
  );
  return extProc;
}

/** A TCP port given on the command line (0 for any free one). */
function portOption(flag: string, value: string | undefined): number | undefined {
  const port = intOption(flag, value);
  if (port !== undefined && port > 65535)
    throw new SpillwayError('SPILLWAY_USAGE', `${flag} must be 0-65535, got ${port}`);
  return port;
}

export async function proxyCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('proxy', argv, {
    port: { type: 'string' },
    host: { type: 'string' },
    'allow-host': { type: 'string', multiple: true },
    observe: { type: 'boolean' },
    ...Object.fromEntries(UPSTREAM_FLAGS.map(({ flag }) => [flag, { type: 'string' as const }])),
    token: { type: 'string' },
    'max-body-bytes': { type: 'string' },
    'max-rewrites': { type: 'string' },
    window: { type: 'string' },
    'max-rewrite-bytes': { type: 'string' },
    'rewrite-wait-ms': { type: 'string' },
    quiet: { type: 'boolean' },
    'open-recall': { type: 'boolean' },
    'no-recall-tool': { type: 'boolean' },
    'ext-proc-port': { type: 'string' },
    ...CONFIG_OPTIONS,
    ...STORE_OPTIONS,
  });
  if (values.help) {
    await write(io.stdout, PROXY_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new SpillwayError('SPILLWAY_USAGE', `proxy takes no arguments, got "${positionals.join(' ')}"`);
  const port = portOption('--port', values.port ?? io.env.SPILLWAY_PORT) ?? DEFAULT_PORT;
  // Checked before anything listens: a bad ext_proc port leaves no proxy running.
  const extProcPort = portOption('--ext-proc-port', values['ext-proc-port']);
  const token = values.token ?? io.env.SPILLWAY_TOKEN;
  // The proxy is the user's own unless they open it: another local user cannot read the token
  // file, and (on Linux) their connections are told apart by the peer socket's owner.
  const recallToken = token || values['open-recall'] ? undefined : await userRecallToken(io.env);
  const ownerUid = recallToken ? process.getuid?.() : undefined;
  const store = await storeFromOptions(values, io.env);
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  try {
    proxy = await startProxy({
      config: configFromOptions(values),
      store,
      host: values.host ?? '127.0.0.1',
      allowHosts: (values['allow-host'] as unknown as string[] | undefined) ?? [],
      port,
      observe: values.observe ?? false,
      upstreams: upstreamsOf(values, io.env),
      token,
      ...(recallToken ? { recallToken } : {}),
      ...(ownerUid === undefined ? {} : { ownerUid }),
      maxBodyBytes: intOption('--max-body-bytes', values['max-body-bytes'], 1) ?? DEFAULT_MAX_BODY_BYTES,
      admission: admissionOf(values),
      ...(values.window ? { window: intOption('--window', values.window, 1024) as number } : {}),
      version: version(),
      ...(values['no-recall-tool'] ? { recallTool: false } : {}),
      mcp: lazyMcp(store),
      // LiteLLM, Kong and Portkey call these (docs/gateways.md).
      routes: gatewayRoutes(),
      log: values.quiet
        ? () => {}
        : (line) => io.stderr.write(`${JSON.stringify({ ts: new Date().toISOString(), ...line })}\n`),
    });
  } catch (err) {
    await store.close?.();
    throw err;
  }
  await write(
    io.stdout,
    `spillway ${version()} proxy listening on ${proxy.url} (preset ${proxy.config.preset}${values.observe ? ', observe only' : ''})\n` +
      `use it with:\n${clientSetup(proxy.url)}` +
      (recallToken
        ? `/stats, /metrics and recall over HTTP (/expand, /mcp) need x-spillway-token: $(cat ${recallToken.file})\n`
        : '') +
      `dashboard: ${proxy.url}/${recallToken ? ` (it asks for the token in ${recallToken.file}, or open ${proxy.url}/#token=$(cat ${recallToken.file}))` : ''}\n`,
  );
  const extProc = await extProcOf(extProcPort, { proxy, store }, token ?? recallToken?.token, io);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await extProc?.close();
  await proxy.close();
  await store.close?.();
  return 0;
}
