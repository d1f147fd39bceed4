// `@celeriac/core/internal`: what the other Celeriac packages share beyond the public API. A plain
// folder until package.json has an `exports` map entry for it; not for applications.
module.exports = require('../dist/internal/index.js');
