import { type ApiName, type Dialect, PROVIDERS } from '../../providers/index.js';
import { EXPAND_TOOL, EXPAND_TOOL_DEFINITION } from '../../tools/index.js';

const { description, inputSchema } = EXPAND_TOOL_DEFINITION;

/**
 * Each API's side of recall through the proxy, from its provider's spec, for spillway_expand:
 * loaded with the proxy's routes (after it listens), not by every start that reads the registry.
 */
export const DIALECTS = Object.fromEntries(
  await Promise.all(
    PROVIDERS.specs.map(async (spec) => {
      const dialect = await spec.recall();
      return [spec.api, dialect({ name: EXPAND_TOOL, description, inputSchema })] as const;
    }),
  ),
) as Readonly<Record<ApiName, Dialect>>;

/**
 * What the offered tool may add to a request, in tokens: its largest definition's bytes (a token
 * is at least a byte), so a guarded request has room for it.
 */
export const RECALL_TOOL_TOKENS = Math.max(
  ...Object.values(DIALECTS).map((d) => Buffer.byteLength(d.toolJson) + 1),
);
