// `@celeriac/core/testing`: the conformance suites. ES modules import it as
// '@celeriac/core/testing/index.js'.
module.exports = require('../dist/testing/index.js');
