// Packs Celeriac as users install it: ONE tarball, `celeriac-<version>.tgz`, that holds the
// `celeriac` package with the workspace packages it is built from (@celeriac/core, redis, celery,
// postgres, amqp, worker, beat, dashboard) bundled inside it, under its own node_modules/ (npm's `bundleDependencies`).
// Their third-party dependencies (ioredis, superjson, cron-parser, ...) become dependencies of
// `celeriac` itself, so npm installs them from the registry as usual. `npm install ./celeriac-*.tgz`
// is then the whole install, and this tarball is what the release workflow publishes.
//
// npm does not bundle workspace packages itself (a bundled dependency that is a workspace link is
// left out), so this script stages the package in a temporary folder first: celeriac's published
// files, each bundled package's published files (the ones `npm pack` would put in its own tarball)
// under node_modules/, and a package.json with `bundleDependencies`; then it runs `npm pack` there.
//
// Usage: node scripts/pack.mjs [folder]   (default: .packs/ in the repository root; build first, as
// `npm run pack` does). Replaces the tarballs already in the folder; prints the path it wrote.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const folder = resolve(process.argv[2] ?? join(root, '.packs'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const PUBLISHED = 'celeriac';

/** Every workspace's package.json, by package name. */
function workspaceManifests() {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const manifests = new Map();
  for (const path of workspaces.filter((entry) => !entry.includes('*'))) {
    const manifest = JSON.parse(readFileSync(join(root, path, 'package.json'), 'utf8'));
    manifests.set(manifest.name, { dir: join(root, path), manifest });
  }
  return manifests;
}

/** The workspace packages `name` depends on, directly or not: the ones to bundle. */
function workspaceClosure(name, manifests, seen = new Set()) {
  for (const dependency of Object.keys(manifests.get(name).manifest.dependencies ?? {})) {
    if (manifests.has(dependency) && !seen.has(dependency)) {
      seen.add(dependency);
      workspaceClosure(dependency, manifests, seen);
    }
  }
  return [...seen].sort();
}

/** Merges `from` into `into` (both name → range); a package asked for with two ranges is an error. */
function mergeRanges(into, from, what) {
  for (const [name, range] of Object.entries(from ?? {})) {
    if (into[name] !== undefined && into[name] !== range) {
      throw new Error(`pack: ${what} ${name} is wanted as ${into[name]} and as ${range}; use one range everywhere`);
    }
    into[name] = range;
  }
}

/** The manifest that is published: celeriac's, with the bundled packages' dependencies and peers. */
function publishedManifest(manifests, bundled) {
  const manifest = structuredClone(manifests.get(PUBLISHED).manifest);
  const dependencies = { ...manifest.dependencies };
  const peerDependencies = { ...manifest.peerDependencies };
  const peerDependenciesMeta = { ...manifest.peerDependenciesMeta };
  for (const name of bundled) {
    const inner = manifests.get(name).manifest;
    if (inner.version !== manifest.version) {
      throw new Error(
        `pack: ${name} is at ${inner.version} and ${PUBLISHED} at ${manifest.version}; version them together`,
      );
    }
    const thirdParty = Object.fromEntries(
      Object.entries(inner.dependencies ?? {}).filter(([dependency]) => !manifests.has(dependency)),
    );
    mergeRanges(dependencies, thirdParty, 'the dependency');
    mergeRanges(peerDependencies, inner.peerDependencies, 'the peer dependency');
    Object.assign(peerDependenciesMeta, inner.peerDependenciesMeta);
    // The bundled copy is the one installed: npm takes a bundled dependency from the tarball.
    dependencies[name] = inner.version;
  }
  const sorted = (object) => Object.fromEntries(Object.entries(object).sort(([a], [b]) => a.localeCompare(b)));
  manifest.dependencies = sorted(dependencies);
  if (Object.keys(peerDependencies).length > 0) manifest.peerDependencies = sorted(peerDependencies);
  if (Object.keys(peerDependenciesMeta).length > 0) manifest.peerDependenciesMeta = sorted(peerDependenciesMeta);
  manifest.bundleDependencies = bundled;
  return manifest;
}

/** The files `npm pack` would put in each named workspace's own tarball, by package name. */
function packedFiles(names) {
  const listed = JSON.parse(
    execFileSync(npm, ['pack', '--dry-run', '--json', ...names.flatMap((name) => ['-w', name])], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  return new Map(listed.map(({ name, files }) => [name, files.map((file) => file.path)]));
}

const manifests = workspaceManifests();
const bundled = workspaceClosure(PUBLISHED, manifests);
const files = packedFiles([PUBLISHED, ...bundled]);

const stage = mkdtempSync(join(tmpdir(), 'celeriac-pack-'));
try {
  const copy = (name, into) => {
    for (const file of files.get(name)) {
      if (file === 'package.json') continue;
      mkdirSync(dirname(join(into, file)), { recursive: true });
      cpSync(join(manifests.get(name).dir, file), join(into, file));
    }
  };
  copy(PUBLISHED, stage);
  for (const name of bundled) {
    const into = join(stage, 'node_modules', name);
    copy(name, into);
    writeFileSync(join(into, 'package.json'), `${JSON.stringify(manifests.get(name).manifest, null, 2)}\n`);
  }
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(publishedManifest(manifests, bundled), null, 2)}\n`);

  mkdirSync(folder, { recursive: true });
  for (const file of readdirSync(folder)) if (file.endsWith('.tgz')) rmSync(join(folder, file));
  const [packed] = JSON.parse(
    execFileSync(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', folder], {
      cwd: stage,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const missing = bundled.filter((name) => !packed.bundled.includes(name));
  if (missing.length > 0) throw new Error(`pack: npm left ${missing.join(', ')} out of the tarball`);
  console.log(join(folder, packed.filename));
} finally {
  rmSync(stage, { recursive: true, force: true });
}
