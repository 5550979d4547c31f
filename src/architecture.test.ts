import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The layers (DEVELOPERS.md draws them), lowest first. A module may import its own layer and the ones below;
// proxy and mcp are surfaces side by side that only the CLI (and the root export) wire together.
const LAYERS: readonly (readonly string[])[] = [
  // What every layer shares: the error class, config checks, the package's root, the event loop's turns.
  ['errors', 'config-schema', 'package-root', 'breathe'],
  // spillway's own folder, locks, private files and logs: what it keeps on disk, whoever writes it.
  ['home'],
  ['signals'],
  ['text'],
  // The model APIs, one folder each (the store names their upstreams); formats/ is their former
  // room, kept as a subpath that re-exports them.
  ['providers'],
  ['store'],
  ['formats'],
  // The collapse of one text (the algorithm), then the engine that runs stages over a conversation.
  ['collapse'],
  ['engine'],
  ['session'],
  ['replay'],
  // The recall tool a model calls and a tool result shortened in MCP's shape: what the MCP
  // server, the gateway and the framework integrations share.
  ['tools'],
  ['proxy', 'mcp', 'clients'],
  // The AI gateways' compression contract: the proxy's rewrite behind other gateways' calls,
  // served on the proxy's port by the routes the CLI hands it.
  ['gateways'],
  // The framework integrations: the engine inside an agent's own process (the MCP tool's definition).
  ['integrations'],
  ['cli', 'index'],
];

const SRC = resolve(import.meta.dirname);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'test-support' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The part of src/ a file belongs to: its top folder, or its own name at the top. */
function unitOf(file: string): string {
  return (relative(SRC, file).split('/')[0] as string).replace(/\.ts$/, '');
}

function layerOf(file: string): number {
  const unit = unitOf(file);
  const layer = LAYERS.findIndex((units) => units.includes(unit));
  if (layer < 0) throw new Error(`${relative(SRC, file)} is in no layer; add "${unit}" to LAYERS`);
  return layer;
}

const toSource = (file: string, specifier: string) =>
  resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));

function importsOf(file: string, values = false): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/^(?:import|export)\s([^;]*?)from\s+'(\.[^']+)'/gms)]
    .filter((m) => !values || !/^type\s/.test(m[1] as string))
    .map((m) => m[2] as string);
  return specifiers.map((s) => toSource(file, s));
}

/**
 * A module's lazy imports (`import('./x.js')`, loaded when first used), read from the syntax
 * tree so that comments and strings are not taken for them. A specifier that is not a plain
 * relative string cannot be checked, so it is refused.
 */
function lazyImportsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg) && arg.text.startsWith('.'))
        found.push(toSource(file, arg.text));
      else if (!arg || !ts.isStringLiteralLike(arg))
        found.push(
          `${file}: import() of ${arg?.getText(source) ?? 'nothing'}, not a string the test can follow`,
        );
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Whether a module is part of what its folder shows: its index.ts exports from it, or there is no index. */
function isShown(module: string): boolean {
  const index = join(dirname(module), 'index.ts');
  let text: string;
  try {
    text = readFileSync(index, 'utf8');
  } catch {
    return true;
  }
  return (
    importsOf(index).includes(module) &&
    new RegExp(`^export\\s[^;]*?from\\s+'\\./${basename(module, '.ts')}\\.js'`, 'm').test(text)
  );
}

const files = sourceFiles(SRC);
const lazy = new Map(files.map((file) => [file, lazyImportsOf(file)]));
// Every import, static and lazy: layers and cycles hold for both.
const graph = new Map(files.map((file) => [file, [...importsOf(file), ...(lazy.get(file) ?? [])]]));
// What loading a module loads: its imports less the type-only ones, which compile away.
const loads = new Map(files.map((file) => [file, importsOf(file, true)]));

/** The imports that reach up a layer, or sideways into another unit of a layer. */
function upwardImports(imports: Map<string, string[]>): string[] {
  const wrong: string[] = [];
  for (const [file, targets] of imports) {
    for (const target of targets) {
      const from = layerOf(file);
      const to = layerOf(target);
      const sameUnit = unitOf(file) === unitOf(target);
      if (to > from || (to === from && !sameUnit && from !== 0))
        wrong.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
  }
  return wrong;
}

describe('architecture', () => {
  it('finds the source files and their imports', () => {
    expect(files.length).toBeGreaterThan(50);
    expect([...graph.values()].flat().length).toBeGreaterThan(100);
  });

  it('imports only sideways within a layer or downwards, never up', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('sees a lazy import that reaches up a layer (the ground floor loading the proxy)', () => {
    const snip = join(SRC, 'text/snip.ts');
    const dir = mkdtempSync(join(tmpdir(), 'spillway-arch-'));
    try {
      const copy = join(dir, 'snip.ts');
      writeFileSync(
        copy,
        `${readFileSync(snip, 'utf8')}\nexport const up = () => import('../proxy/server.js');\n`,
      );
      const reached = lazyImportsOf(copy).map((t) => resolve(dirname(snip), relative(dir, t)));
      const wrong = upwardImports(new Map([[snip, [...(graph.get(snip) ?? []), ...reached]]]));
      expect(wrong).toEqual(['text/snip.ts -> proxy/server.ts']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Every module enters another folder through an index.ts. The build bundles the entry points,
  // so an index costs a start nothing: it loads only what is used (DEVELOPERS.md, Start time).
  it('enters a folder only through an index.ts: its own, or a narrower one inside it', () => {
    const wrong: string[] = [];
    for (const [file, imports] of graph) {
      for (const target of imports) {
        const from = dirname(file);
        const into = dirname(target);
        // Its own folder, or one it is inside (the vocabulary above it): no index needed.
        if (from === into || from.startsWith(`${into}/`) || basename(target) === 'index.ts') continue;
        // A lazy import names the module it needs, so that only it loads (DEVELOPERS.md, Start
        // time), but only a module its folder shows: one its index.ts exports from, or one in a
        // folder with no index, whose modules are entered only so (cli/commands/).
        if (lazy.get(file)?.includes(target) && isShown(target)) continue;
        wrong.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('reads lazy imports: layers, cycles and doors hold for import() too', () => {
    expect([...lazy.values()].flat().length).toBeGreaterThan(25);
    expect([...lazy.values()].flat().filter((t) => !t.endsWith('.ts'))).toEqual([]);
  });

  it('has no import cycles', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('keeps files under about 300 lines', () => {
    const long = files
      .map((file) => ({ file: relative(SRC, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 320);
    expect(long).toEqual([]);
  });

  it('keeps functions under about 80 lines, or says beside them why not', () => {
    const long: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node) => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body) {
          const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
          const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
          // The reason is a comment starting "Long:" just before the function (or its statement).
          const around = text.slice(Math.max(0, node.getFullStart() - 600), node.getStart());
          if (end - start > 85 && !/\/\/ Long: /.test(around))
            long.push(`${relative(SRC, file)}:${start + 1} (${end - start} lines)`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(long).toEqual([]);
  });

  it("DEVELOPERS.md's whiteboard draws every layer, top to bottom, as LAYERS has them", () => {
    const doc = readFileSync(join(SRC, '../DEVELOPERS.md'), 'utf8');
    const board = /## The whiteboard\n[\s\S]*?```\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const rows = board.trimEnd().split('\n');
    expect(rows.length).toBe(LAYERS.length);
    rows.forEach((row, i) => {
      const layer = LAYERS[LAYERS.length - 1 - i] ?? [];
      const [names = ''] = row.split(/ {2,}/);
      const named = names
        .split(' ')
        .filter((n) => n !== '...')
        .map((n) => n.replace(/\/$|\.ts$/, ''));
      expect(
        named.every((n) => layer.includes(n)),
        row,
      ).toBe(true);
      for (const unit of layer) expect(row, unit).toContain(unit);
    });
  });

  it('exports a curated root and one subpath per layer, each backed by its index', async () => {
    const root = await import('./index.js');
    expect(Object.keys(root).length).toBeLessThan(45);
    for (const name of ['MiB', 'DAY_MS', 'redactUrl', 'recallFooter']) expect(root).not.toHaveProperty(name);
    const pkg = JSON.parse(readFileSync(join(SRC, '../package.json'), 'utf8')) as {
      exports: Record<string, string | { import: string }>;
    };
    // The framework integrations are subpaths of their own, one file each.
    const integrations = Object.entries(pkg.exports).filter(([path]) =>
      ['./ai-sdk', './langchain', './mcp-client', './openai-agents'].includes(path),
    );
    for (const [path, target] of integrations)
      expect(typeof target === 'string' ? target : target.import).toBe(
        `./dist/integrations/${path.slice(2)}.js`,
      );
    // `spillway/pipeline` is the engine's name before it had its own folder, kept for users' imports.
    expect(pkg.exports['./pipeline']).toEqual(pkg.exports['./engine']);
    const subpaths = Object.entries(pkg.exports).filter(
      ([path]) =>
        !['.', './package.json', './pipeline'].includes(path) && !integrations.some(([p]) => p === path),
    );
    expect(subpaths.map(([path]) => path).sort()).toEqual(
      ['collapse', 'engine', 'formats', 'mcp', 'proxy', 'replay', 'session', 'signals', 'store', 'text'].map(
        (l) => `./${l}`,
      ),
    );
    for (const [path, target] of subpaths) {
      const built = typeof target === 'string' ? target : target.import;
      expect(built).toBe(`./dist/${path.slice(2)}/index.js`);
      const layer = await import(`./${path.slice(2)}/index.ts`);
      expect(Object.keys(layer).length, path).toBeGreaterThan(0);
    }
  });
});

describe('the framework integrations', () => {
  for (const integration of ['ai-sdk', 'langchain', 'mcp-client', 'openai-agents'])
    it(`${integration} loads no proxy, no MCP server, no HTTP, no CLI: the engine, the store, the recall tool`, () => {
      const loaded = new Set<string>();
      const visit = (file: string) => {
        if (loaded.has(file)) return;
        loaded.add(file);
        for (const target of loads.get(file) ?? []) visit(target);
      };
      visit(join(SRC, `integrations/${integration}.ts`));
      const units = new Set([...loaded].map(unitOf));
      for (const surface of ['proxy', 'cli', 'clients', 'replay', 'session', 'mcp'])
        expect(units, surface).not.toContain(surface);
      const servers = [...loaded].filter((f) =>
        /from 'node:(http|https|http2)'|from 'undici'/.test(readFileSync(f, 'utf8')),
      );
      expect(servers.map((f) => relative(SRC, f))).toEqual([]);
    });
});
