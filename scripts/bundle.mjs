// Bundles each package's compiled entry points (dist/, written by `tsc -b`) into one file each under
// bundle/, which is what package.json's `main` and `bin` point to.
//
// Why: a process pays for every module file it loads (resolve, read, compile), and the `fork` pool
// starts a process for every task. The packages are ~100 small modules; as bundles, a pool child
// loads a handful of files. Other packages (npm and @celeriac/*) stay external, so each package is
// still loaded once and shared. The bundles keep source maps back to the TypeScript sources.
//
// The packages point at their bundles through `main` and `types`, not `exports` maps: resolving an
// `exports` map loads Node's ESM resolver even for `require`, ~3 ms of CPU per pool child (5 % of a
// fork pool's throughput). core's second entry is a file of its own, testing/index.js.
//
// Usage: node scripts/bundle.mjs (run by `npm run build`, after tsc).
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Entry points per package: output name (under bundle/) → compiled file (under dist/). */
const ENTRIES = {
  redis: { index: 'index.js' },
  worker: { index: 'index.js', 'child-main': 'pool/child-main.js', 'child-loop': 'pool/child-loop.js' },
  beat: { index: 'index.js' },
  celeriac: { index: 'index.js', cli: 'cli/main.js' },
};

/**
 * A second entry of a package (core's testing) must share the first one's classes, not carry
 * copies: what it imports from its package's index resolves to the package itself.
 */
function ownIndexAsPackage(name) {
  const index = join(root, 'packages', name, 'dist', 'index.js');
  const packageName = name === 'celeriac' ? 'celeriac' : `@celeriac/${name}`;
  return {
    name: 'own-index-as-package',
    setup(build) {
      build.onResolve({ filter: /^\.\.?\/(.*\/)?index$/ }, (args) =>
        join(args.resolveDir, `${args.path}.js`) === index ? { path: packageName, external: true } : undefined,
      );
    },
  };
}

/**
 * The pool child's entry turns the code cache on, then requires the child loop: as a bundle of its
 * own, the loop (and what it runs) comes from the cache too, instead of being compiled in every child.
 */
function childLoopApart() {
  return {
    name: 'child-loop-apart',
    setup(build) {
      build.onResolve({ filter: /^\.\/child-loop$/ }, (args) => (args.importer.endsWith('child-main.js') ? { path: './child-loop.js', external: true } : undefined));
    },
  };
}

await Promise.all(
  Object.entries(ENTRIES).map(([name, entries]) => {
    const dir = join(root, 'packages', name);
    return build({
      entryPoints: Object.fromEntries(Object.entries(entries).map(([out, file]) => [out, join(dir, 'dist', file)])),
      plugins: [ownIndexAsPackage(name), childLoopApart()],
      outdir: join(dir, 'bundle'),
      bundle: true,
      // Every package import stays a require: each package is one shared instance at run time.
      packages: 'external',
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      sourcemap: true,
      logLevel: 'warning',
    });
  }),
);
