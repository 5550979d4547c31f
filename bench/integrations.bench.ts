import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ms } from './measure.js';

const ROOT = resolve(import.meta.dirname, '..');
// Reports the child's CPU time, peak memory and how many of spillway's built files it loaded.
const REPORT = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nUSAGE '+(u.userCPUTime+u.systemCPUTime)/1000+' '+u.maxRSS/1024+'\\n')})`;

const SUBPATHS = [
  'spillway/ai-sdk',
  'spillway/openai-agents',
  'spillway/langchain',
  'spillway/mcp-client',
  'spillway',
  'spillway/proxy',
];

function importCost(specifier: string): { cpuMs: number; rssMb: number; files: number } {
  // The files of dist/ the import loaded, by the ESM loader's resolve hook.
  const dist = `file://${ROOT}/dist/`;
  const count = `data:text/javascript,import{register}from'node:module';register('data:text/javascript,export async function resolve(s,c,n){const r=await n(s,c);if(r.url.startsWith("${dist}"))process.stderr.write("DIST "+r.url+"\\\\n");return r}')`;
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      REPORT,
      '--import',
      count,
      '--input-type=module',
      '-e',
      `await import(${JSON.stringify(specifier)})`,
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  const m = /USAGE ([\d.]+) ([\d.]+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`import ${specifier} failed: ${r.stderr}`);
  const files = new Set(r.stderr.split('\n').filter((l) => l.startsWith('DIST ')));
  return { cpuMs: Number(m[1]), rssMb: Number(m[2]), files: files.size };
}

/**
 * What importing each framework integration costs beside the root and the proxy: CPU time and
 * peak memory of a process that only imports it (median of 5, the subpaths interleaved), and
 * how many of spillway's built files it loads.
 */
export function benchIntegrations(): void {
  console.log('\n## integrations: the cost of importing each subpath (median of 5, interleaved)');
  if (!existsSync(join(ROOT, 'dist/integrations/ai-sdk.js'))) {
    console.log('  skipped: dist/ is not built (npm run build)');
    return;
  }
  const runs = new Map<string, { cpuMs: number; rssMb: number; files: number }[]>();
  for (let round = 0; round < 5; round++)
    for (const subpath of SUBPATHS) runs.set(subpath, [...(runs.get(subpath) ?? []), importCost(subpath)]);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
  for (const [subpath, r] of runs)
    console.log(
      `  ${subpath.padEnd(24)} cpu ${ms(median(r.map((x) => x.cpuMs))).padStart(8)}  rss ${median(
        r.map((x) => x.rssMb),
      )
        .toFixed(0)
        .padStart(4)} MB  spillway files ${median(r.map((x) => x.files))}`,
    );
}
