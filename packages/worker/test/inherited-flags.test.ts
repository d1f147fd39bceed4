import { inheritedFlags } from '../src/pool/inherited-flags';

describe('inheritedFlags', () => {
  it('keeps the worker process flags a pool child needs too', () => {
    expect(inheritedFlags(['--enable-source-maps', '--require', './setup.js', '--inspect=0'])).toEqual([
      '--enable-source-maps',
      '--require',
      './setup.js',
      '--inspect=0',
    ]);
  });

  it.each([
    [['-e', 'start()', '--enable-source-maps']],
    [['--eval', 'start()', '--enable-source-maps']],
    [['--eval=start()', '--enable-source-maps']],
    [['-p', 'start()', '--enable-source-maps']],
    [['-pe', 'start()', '--enable-source-maps']],
    [['--print=start()', '--enable-source-maps']],
  ])('drops the script of %j, which the child would run instead of its entry', (execArgv) => {
    expect(inheritedFlags(execArgv)).toEqual(['--enable-source-maps']);
  });
});
