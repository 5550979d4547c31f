import { SpillwayError } from '../../errors.js';
import { readJsonc, setJsonc, withoutEmpty } from '../config-text.js';
import { type FileEdit, keptUpstreamEdit, type SetupOptions } from '../setup-plan.js';
import { opencodeConfigPath, opencodePluginPath } from './paths.js';
import { opencodePlugin } from './plugin.js';

/** The providers whose base URL setup points at the proxy, and the API the proxy forwards each as. */
const PROVIDERS = { anthropic: 'anthropic', openai: 'openai' } as const;
type Provider = keyof typeof PROVIDERS;

const baseUrlPath = (provider: Provider) => ['provider', provider, 'options', 'baseURL'];

/** A provider's base URL in opencode's config, if the user set one. */
function baseUrlOf(value: Record<string, unknown>, provider: Provider): string | undefined {
  const providers = value.provider as Record<string, { options?: Record<string, unknown> }> | undefined;
  const url = providers?.[provider]?.options?.baseURL;
  return typeof url === 'string' ? url : undefined;
}

/**
 * A base URL of the user's, as the proxy's upstream: the proxy forwards `/v1/...` paths, so the
 * URL must end in `/v1` (the SDKs' own form) and the upstream is what comes before it.
 */
function keptUpstream(url: string | undefined, file: string, provider: Provider): string | undefined {
  if (url === undefined) return undefined;
  if (!/\/v1\/?$/.test(url))
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `${file} sends opencode's ${provider} requests to ${url}; spillway's proxy can stand in front of a base URL ending in /v1 only. Run setup without --proxy (the plugin and recall only), or point it at the proxy by hand`,
    );
  return url.replace(/\/v1\/?$/, '');
}

/**
 * opencode's files: the plugin (`plugin/spillway.js`) that, after a `bash` call opencode cut
 * (past 2,000 lines or 50 KB it shows the last ones and saves the whole to a file), adds the
 * lines that matter from the whole and the recall id; in `opencode.json`, spillway as a local
 * MCP server for `spillway_expand` and, with a proxy, the anthropic and openai providers' base
 * URLs (a base URL of the user's is kept as the proxy's upstream).
 *
 * @example
 * const edits = opencodeSetup({ home: '/home/u', env: {}, spillway, proxy: 'http://127.0.0.1:4747' });
 */
export function opencodeSetup(options: SetupOptions): FileEdit[] {
  const where = { home: options.home, env: options.env };
  const config = opencodeConfigPath(where);
  const proxyUrl = options.proxy === undefined ? undefined : `${options.proxy}/v1`;
  // The MCP server and the plugin start spillway outside the user's shell: a home of the user's
  // own must be named.
  const home = options.env.SPILLWAY_HOME?.trim();
  const environment: Record<string, string> = home ? { SPILLWAY_HOME: home } : {};
  const plugin: FileEdit = {
    path: opencodePluginPath(where),
    purpose: 'plugin: beside a bash output opencode cut, the lines that matter from the whole',
    remove: () => '',
    add: () => opencodePlugin(options.spillway, environment),
  };
  const kept = keptUpstreamEdit(options, {
    anthropic: (planned) =>
      keptUpstream(baseUrlOf(readJsonc(planned(config), config), 'anthropic'), config, 'anthropic'),
    openai: (planned) =>
      keptUpstream(baseUrlOf(readJsonc(planned(config), config), 'openai'), config, 'openai'),
  });
  const settings: FileEdit = {
    path: config,
    purpose: `spillway_expand as an MCP server${proxyUrl ? ', the anthropic and openai base URLs' : ''}`,
    remove: (text) => {
      const value = readJsonc(text, config);
      let out = (value.mcp as Record<string, unknown> | undefined)?.spillway
        ? setJsonc(text, ['mcp', 'spillway'], undefined)
        : text;
      for (const provider of Object.keys(PROVIDERS) as Provider[])
        if (proxyUrl !== undefined && baseUrlOf(value, provider) === proxyUrl) {
          const before = options.kept?.[PROVIDERS[provider]];
          out = setJsonc(out, baseUrlPath(provider), before === undefined ? undefined : `${before}/v1`);
          out = withoutEmpty(out, [
            ['provider', provider, 'options'],
            ['provider', provider],
          ]);
        }
      return withoutEmpty(out, [['mcp'], ['provider']]);
    },
    add: (text) => {
      let out = setJsonc(text, ['mcp', 'spillway'], {
        type: 'local',
        command: [options.spillway.command, ...options.spillway.args, 'mcp'],
        ...(home ? { environment } : {}),
        enabled: true,
      });
      if (proxyUrl !== undefined)
        for (const provider of Object.keys(PROVIDERS) as Provider[])
          out = setJsonc(out, baseUrlPath(provider), proxyUrl);
      return out;
    },
  };
  return [plugin, kept, settings];
}
