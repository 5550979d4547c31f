import { z } from 'zod';
import { CollapseOptionsSchema } from '../../collapse/index.js';
import type { Stage, StageName } from '../types.js';
import { collapseStage } from './collapse.js';
import { DedupOptionsSchema, dedupStage } from './dedup.js';
import { formatStage } from './format.js';
import { LinecapOptionsSchema, linecapStage } from './linecap.js';
import { MaskOptionsSchema, maskStage } from './mask.js';
import { RerunOptionsSchema, rerunStage } from './rerun/index.js';
import { SupersedeOptionsSchema, supersedeStage } from './supersede.js';
import { textcleanStage } from './textclean.js';

const NO_OPTIONS = z.strictObject({});

/**
 * Every stage, registered once: the schema of its options and how to build it from them. The
 * config's validation, its JSON schema and the engine's lookups all derive from this table; the
 * compiler checks it names every stage of STAGE_NAMES.
 *
 * @example
 * STAGES.collapse.build(STAGES.collapse.schema.parse({ maxTokens: 1500 }));
 */
export const STAGES = {
  textclean: { schema: NO_OPTIONS, build: () => textcleanStage() },
  format: { schema: NO_OPTIONS, build: () => formatStage() },
  dedup: { schema: DedupOptionsSchema, build: dedupStage },
  rerun: { schema: RerunOptionsSchema, build: rerunStage },
  linecap: { schema: LinecapOptionsSchema, build: linecapStage },
  collapse: { schema: CollapseOptionsSchema, build: collapseStage },
  supersede: { schema: SupersedeOptionsSchema, build: supersedeStage },
  mask: { schema: MaskOptionsSchema, build: maskStage },
} as const satisfies Record<StageName, { schema: z.ZodObject; build: (options: never) => Stage }>;

/** A stage's options as a config writes them: `{"name": "collapse", "maxTokens": 1500}`. */
export type StageSpecObject = {
  [N in StageName]: z.infer<(typeof STAGES)[N]['schema']> & { name: N };
}[StageName];

/**
 * A stage with its options, as a config lists it, derived from {@link STAGES}.
 *
 * @example
 * StageSpecSchema.parse({ name: 'mask', keepRecent: 10 });
 */
export const StageSpecSchema = z.discriminatedUnion(
  'name',
  (Object.keys(STAGES) as StageName[]).map((name) =>
    (STAGES[name].schema as z.ZodObject).extend({ name: z.literal(name) }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
) as unknown as z.ZodType<StageSpecObject>;

export { collapseStage } from './collapse.js';
export { type DedupOptions, DedupOptionsSchema, dedupStage } from './dedup.js';
export { formatStage } from './format.js';
export { type LinecapOptions, LinecapOptionsSchema, linecapStage } from './linecap.js';
export { dueCount, type MaskOptions, MaskOptionsSchema, maskStage } from './mask.js';
export { type RerunOptions, RerunOptionsSchema, rerunStage } from './rerun/index.js';
export { type SupersedeOptions, SupersedeOptionsSchema, supersedeStage } from './supersede.js';
export { textcleanStage } from './textclean.js';
