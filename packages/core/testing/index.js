// `@celeriac/core/testing`: the conformance suites, from their bundle. A plain file rather than an
// `exports` map entry, which would cost every process that loads core (see scripts/bundle.mjs).
// ES modules import it as '@celeriac/core/testing/index.js'.
module.exports = require('../bundle/testing.js');
