#!/usr/bin/env node
// The `celeriac` command. A committed file, so that `npm ci` can link it before the build: it runs
// the compiled CLI (dist/cli/main.js), or says how to build it when it is missing.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const cli = join(__dirname, '..', 'dist', 'cli', 'main.js');
if (!existsSync(cli)) {
  console.error(
    `celeriac: ${cli} is missing: the package is not built. Run \`npm run build\` in the repository root, then try ` +
      `again.`,
  );
  process.exit(1);
}
require(cli);
