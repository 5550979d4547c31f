import { existsSync } from 'node:fs';
import { join } from 'node:path';

type Where = { home: string; env: NodeJS.ProcessEnv };

/** opencode's configuration folder: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. */
export function opencodeConfigDir({ home, env }: Where): string {
  return join(env.XDG_CONFIG_HOME?.trim() || join(home, '.config'), 'opencode');
}

/** Where opencode saves a whole output it cut: `$XDG_DATA_HOME/opencode/tool-output`. */
export function opencodeOutputDir({ home, env }: Where): string {
  return join(env.XDG_DATA_HOME?.trim() || join(home, '.local', 'share'), 'opencode', 'tool-output');
}

/** The user's global config: `opencode.jsonc` when there is one, else `opencode.json`. */
export function opencodeConfigPath(where: Where): string {
  const dir = opencodeConfigDir(where);
  const jsonc = join(dir, 'opencode.jsonc');
  return existsSync(jsonc) ? jsonc : join(dir, 'opencode.json');
}

/** The plugin setup writes: opencode loads every `plugin/*.js` of its config folder at start. */
export function opencodePluginPath(where: Where): string {
  return join(opencodeConfigDir(where), 'plugin', 'spillway.js');
}
