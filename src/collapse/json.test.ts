import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getTokenizer } from '../text/tokenizers/index.js';
import { compactJson } from './json.js';
import type { Json } from './json-tree.js';

const o200k = getTokenizer('o200k');
const ID = 'sw_0123456789abcdef';
const GAP_ITEMS = /^… (\d+) more items like these …$/;
const GAP_KEYS = /^… (\d+) more keys …$/;
const STUB = /^… (\d+) (items|keys) …$/;
const SHORTENED = /^([\s\S]*)… \((\d+) characters omitted\) …([\s\S]*)$/;

/**
 * Throws unless `shown` is `whole` abridged as collapse promises: every value shown verbatim,
 * a long string by its ends, a container by its size, or by its entries in order with the first
 * and the last (objects: every key unless wide), each gap counted exactly where it was.
 */
function expectAbridged(whole: Json, shown: Json, path = '$'): void {
  if (typeof shown === 'string' && typeof whole !== 'string') {
    const stub = STUB.exec(shown);
    expect(stub, `${path}: a container's stub`).not.toBeNull();
    const n = Array.isArray(whole) ? whole.length : Object.keys(whole as object).length;
    expect(Number(stub?.[1]), `${path}: its size`).toBe(n);
    return;
  }
  if (typeof whole === 'string' && shown !== whole) {
    const cut = SHORTENED.exec(shown as string);
    expect(cut, `${path}: a long string's ends`).not.toBeNull();
    expect(whole.startsWith(cut?.[1] ?? '\0') && whole.endsWith(cut?.[3] ?? '\0')).toBe(true);
    return;
  }
  if (whole === null || typeof whole !== 'object') return void expect(shown, path).toEqual(whole);
  const entries: [string, Json][] = Array.isArray(whole)
    ? whole.map((v, i) => [String(i), v])
    : Object.entries(whole);
  const kept: [string, Json][] = Array.isArray(shown)
    ? shown.map((v, i) => [String(i), v])
    : Object.entries(shown as object);
  let at = 0;
  for (const [key, value] of kept) {
    const gap = (Array.isArray(whole) ? GAP_ITEMS.exec(String(value)) : GAP_KEYS.exec(key)) ?? undefined;
    if (gap && (Array.isArray(whole) ? typeof value === 'string' : value === null)) {
      expect(at, `${path}: a gap after the first entry`).toBeGreaterThan(0);
      at += Number(gap[1]);
      continue;
    }
    const [wholeKey, wholeValue] = entries[at] as [string, Json];
    if (!Array.isArray(whole)) expect(key, `${path}: keys in order`).toBe(wholeKey);
    expectAbridged(wholeValue, value, `${path}/${wholeKey}`);
    at++;
  }
  expect(at, `${path}: every entry shown or counted, the last shown`).toBe(entries.length);
  if (entries.length > 0) expect(kept.length).toBeGreaterThan(0);
}

/** The value at the end of the last path: the last entry of the last entry of … */
function lastLeaf(value: Json): Json {
  while (value !== null && typeof value === 'object') {
    const entries = Object.values(value);
    if (entries.length === 0) return value;
    value = entries.at(-1) as Json;
  }
  return value;
}

function compact(value: Json, budget: number) {
  const out = compactJson(JSON.stringify(value), { budget, tokenizer: o200k, id: ID });
  if (!out) return undefined;
  const [header, ...body] = out.text.split('\n');
  return {
    header: header as string,
    value: JSON.parse(body.join('\n')) as Json,
    tokens: o200k.count(out.text),
  };
}

// A design tool's node tree (get_node_tree over MCP): frames of frames, an odd value at the last leaf.
const node = (depth: number, path: string, width: number): Json => ({
  id: path,
  name: `Frame ${path}`,
  type: depth === 0 ? 'TEXT' : 'FRAME',
  visible: true,
  bounds: { x: depth * 8, y: depth * 16, width: 320, height: 48 },
  ...(depth === 0
    ? { characters: path.endsWith(`:${width - 1}`.repeat(3)) ? 'Checkout failed: card declined' : 'Label' }
    : { children: Array.from({ length: width }, (_, i) => node(depth - 1, `${path}:${i}`, width)) }),
});

const SHAPES: Record<string, Json> = {
  'node tree, 6 levels of 3': { document: node(5, '1', 3) },
  'node tree, 8 levels of 4': { document: node(7, '1', 4) },
  'node tree, 12 levels of 2': { document: node(11, '1', 2) },
  'records of an API answer': {
    items: Array.from({ length: 2000 }, (_, i) => ({
      id: i,
      name: `user${i}`,
      active: i % 3 === 0,
      tags: ['a'],
    })),
  },
  'records with long text': Array.from({ length: 300 }, (_, i) => ({
    id: i,
    body: 'lorem ipsum '.repeat(30),
    meta: { a: 1, b: [1, 2, 3], c: { d: 'x'.repeat(100) } },
  })),
  'groups of records': {
    groups: Array.from({ length: 40 }, (_, g) => ({
      name: `g${g}`,
      items: Array.from({ length: 100 }, (_, i) => ({ i, v: `val ${g}-${i}` })),
    })),
  },
  'GeoJSON polygons': {
    type: 'FeatureCollection',
    features: Array.from({ length: 50 }, (_, f) => ({
      type: 'Feature',
      properties: { name: `f${f}` },
      geometry: { type: 'Polygon', coordinates: [Array.from({ length: 200 }, (_, i) => [i + f, i * 2])] },
    })),
  },
  'a lockfile': {
    lockfileVersion: 3,
    packages: Object.fromEntries(
      Array.from({ length: 800 }, (_, i) => [
        `node_modules/pkg-${i}`,
        { version: `1.${i}.0`, resolved: `https://registry.npmjs.org/pkg-${i}/-/pkg-${i}-1.${i}.0.tgz` },
      ]),
    ),
  },
  'a wide flat object': Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`key_${i}`, i])),
  'a matrix': Array.from({ length: 300 }, (_, r) => Array.from({ length: 300 }, (_, c) => r * c)),
};

describe('JSON compaction', () => {
  for (const [name, value] of Object.entries(SHAPES)) {
    it(`${name}: fills 85% of any budget from 500 tokens, abridged, every omission counted`, () => {
      for (const budget of [500, 1000, 2000, 4000]) {
        const out = compact(value, budget);
        expect(out, `at ${budget}`).toBeDefined();
        expect(out?.header).toContain(`spillway_expand <<sw:${ID}>>`);
        expect(out?.tokens).toBeLessThanOrEqual(budget);
        expect(out?.tokens, `filled at ${budget}`).toBeGreaterThanOrEqual(budget * 0.85);
        expectAbridged(value, out?.value as Json);
      }
    });
  }

  it("keeps a tree's last leaf verbatim at every budget its path fits", () => {
    for (const [name, budget] of [
      ['node tree, 6 levels of 3', 500],
      ['node tree, 8 levels of 4', 1000],
      ['node tree, 12 levels of 2', 1000],
    ] as const) {
      const value = SHAPES[name] as Json;
      const out = compact(value, budget);
      expect(lastLeaf(out?.value as Json), `${name} at ${budget}`).toBe(lastLeaf(value));
    }
    expect(lastLeaf(SHAPES['node tree, 6 levels of 3'] as Json)).toBe('Checkout failed: card declined');
  });

  it('shows odd items out of a long array early, past its first 4,096 items too', () => {
    const items: Json[] = Array.from({ length: 10_000 }, (_, i) => ({ id: i, status: 'ok' }));
    items[9000] = { id: 9000, status: 'failed: card declined' };
    const out = compact({ items }, 1000);
    expect(JSON.stringify(out?.value)).toContain('"id":9000,"status":"failed: card declined"');
  });

  it('keeps a "__proto__" key a key', () => {
    const text = `{"__proto__":{"polluted":1},"items":[${Array.from({ length: 3000 }, (_, i) => i).join(',')}]}`;
    const out = compactJson(text, { budget: 500, tokenizer: o200k, id: ID });
    expect(out?.text).toContain('"__proto__":{"polluted":1}');
  });

  it('property: within budget, abridged with every omission counted, the root shown, at least 85% full', () => {
    fc.assert(fillProperty(), { numRuns: 100 });
  });

  // Found by the property above on a random seed: a 7-key object deep in the tree, opened all at
  // once, did not fit, so 386 of 500 tokens (77%) were used; the fill now shows part of it (488).
  it('fills a tree whose one large object does not fit whole (a seed the property found)', () => {
    fc.assert(fillProperty(), { seed: -320690133, path: KNOWN_SHORTFALL_PATH, endOnFailure: true });
  });
});

/** Random trees at random budgets: within budget, abridged with every omission counted, the root shown, 85% full. */
function fillProperty() {
  const leaf = fc.oneof(
    fc.integer(),
    fc.constantFrom('ok', 'shipped', 'payment failed', 'x'.repeat(450), null, true),
    fc.record({ id: fc.integer(), status: fc.constantFrom('ok', 'error: declined') }),
  );
  const { value } = fc.letrec<{ value: Json }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('value'), { maxLength: 40 }),
      fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 8 }),
    ),
  }));
  const root = fc
    .array(value, { minLength: 1, maxLength: 400 })
    .map((items): Json => ({ items, end: 'last' }));
  return fc.property(root, fc.integer({ min: 500, max: 3000 }), (tree, budget) => {
    const out = compact(tree, budget);
    if (!out) return;
    expect(out.tokens).toBeLessThanOrEqual(budget);
    expectAbridged(tree, out.value);
    expect(Object.keys(out.value as object)).toEqual(['items', 'end']);
    // Full only where the whole, its long strings by their ends, is over the budget.
    const ends = (_: string, v: Json) =>
      typeof v === 'string' && v.length > 400
        ? `${v.slice(0, 200)}… (${v.length - 400} characters omitted) …`
        : v;
    if (o200k.count(JSON.stringify(tree, ends)) > budget)
      expect(out.tokens).toBeGreaterThanOrEqual(budget * 0.85);
  });
}

const KNOWN_SHORTFALL_PATH =
  '57:6:10:6:9:9:12:12:16:15:15:15:15:15:15:15:15:15:15:15:15:15:15:15:15:15:15:17:15:20:18:15:15:18:17:17:17:17:17:17:18:17:19:24:22:20:23:21:21:22:23:21:22:23:27:21:21:25:27:25:25:25:30:25:29:29:34:32:32:33:36:32:33:32:32:33:36:32:32:34:34:34:38:37:36:36:37:46:44:17:17:18:17:17:17:17:17:17:17:17:18:17:17:17:17:18:19:45:44:48:50:53:17:17:54:53:55:55:60:59:58:58:59:59:58:60:58:59:59:58:59:58:58:59:58:58:63:62:62:62:62:62:62:62:62:63:62:66:64:63:64:62:63:62:62:66:65:65:65:65:65:65:65:65:66:65:65:65:67:65:66:66:65:65:65:67:65:65:68:71:67:68:67:69:68:67:67:69:68:67:67:68:67:70:72:73:72:72:72:74:72:80:76:76:76:76:76:81:80:76:88:86:86:86:86:90:89:86:86:95:99:94:94:94:94:94:94:99:95:95:95:95:98:95:98:95:97:96:96:96:96:95:97:104:101:101:101:101:106:106:105:108:106:112:112:110:113:113:113:112:112:113:13:14:14:14:15:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:14:106:14:111:114:111:110:111:110:115:110:110:110:110:111:111:112:113:119:117:118:125:123:122:126:126:126:125:128:127:131:129:128:129:129:129:131:130:132:129:128:128:128:128:128:132:133:132:132:134:137:143:139:140:135:139:146:141:144:141:141:143:142:141:143:141:141:141:141:144:149:149:149:151:149:154:153:153:153:153:149:151:149:149:153:155:157:161:155:155:155:155:155:155:156:152:149:149:155:153:153:155:155:155:155:155:158:156:156:12:13:13:14:147:152:150:150:150:150:155:150:154:158:160:163:162:165:161:161:164:167:163:163:162:162:162:166:162:163:162:164:162:163:163:169:167:167:167:167:173:173:176:178:178:183:184:187:186:186:186:186:186:186:186:186:187:188:193:188:186:187:186:186:188:191:190:190:190:190:190:190:190:190:193:190:190:190:191:191:191:190:190:190:191:190:199:194:196:193:192:193:194:192:192:192:192:192:192:192:198:196:196:196:196:196:198:203:199:199:204:199:198:201:198:199:198:198:198:198:199:201:202:201:201:201:201:201:201:201:201:203:203:208:202:204:208:205:212:206:205:205:213:212:213:212:213:212:212:213:212:212:218:216:216:217:216:216:218:219:218:218:218:219:224:222:223:222:226:236:240:241:243:241:241:241:242:243:242:242:241:241:241:241:241:241:244:242:241:241:242:241:243:253:249:249:249:249:254:253:249:254:252:256:258:261:260:260:260:262:263:262:262:262:262:262:262:263:262:262:262:262:264:263:262:262:262:266:262:262:267:268:267:273:267:267:267:267:267:267:271:269:269:272:275:273:275:285:282:286:282:283:282:282:283:284:282:284:284:282:282:291:288:288:297:291:292:291:291:291:292:291:291:291:291:292:291:292:294:293:300:299:300:297:298:298:297:297:298:299:297:303:315:313:313:314:313:317:313:313:313:315:313:313:313:313:315:314:314:313:318:317:317:316:317:316:317:316:316:317:316:316:319:318:316:317:317:316:320:319:319:319:319:319:319:319:321:319:321:322:319:322:319:320:329:325:325:325:330:325:326:326:330:330:330:330:330:332:333:332:329:332:332:334:333:333:333:334:334:12:13:15:14:15:13:13:16:14';
