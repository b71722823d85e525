import { describe, expect, it } from 'vitest';
import {
  formatLabelSelector,
  isStatusError,
  labelSelectorFromSpec,
  matchesLabels,
  parseLabelSelector,
  type LabelSelector,
  type LabelSelectorSpec,
} from '../../src/api/index.js';

const web = { app: 'web', tier: 'front', replicas: '3' };
const db = { app: 'db', replicas: '12' };
const bare = {};

const selects = (text: string) => {
  const selector = parseLabelSelector(text);
  return [web, db, bare].map((labels) => matchesLabels(selector, labels));
};

describe('parseLabelSelector and matchesLabels', () => {
  it('selects everything with an empty selector', () => {
    expect(parseLabelSelector('')).toEqual({ requirements: [] });
    expect(selects('   ')).toEqual([true, true, true]);
  });

  it('matches equality with = and ==', () => {
    expect(selects('app=web')).toEqual([true, false, false]);
    expect(selects('app==web')).toEqual([true, false, false]);
  });

  it('matches inequality, including objects without the label', () => {
    expect(selects('app!=web')).toEqual([false, true, true]);
  });

  it('matches set membership with in and notin', () => {
    expect(parseLabelSelector('app in (web,db)').requirements[0]).toEqual({ key: 'app', operator: 'In', values: ['web', 'db'] });
    expect(selects('app in (web, db)')).toEqual([true, true, false]);
    expect(selects('app notin (web)')).toEqual([false, true, true]);
  });

  it('matches existence and absence of a key', () => {
    expect(selects('tier')).toEqual([true, false, false]);
    expect(selects('!tier')).toEqual([false, true, true]);
  });

  it('compares integers with > and <, never matching a missing label', () => {
    expect(selects('replicas>5')).toEqual([false, true, false]);
    expect(selects('replicas<5')).toEqual([true, false, false]);
  });

  it('ands comma-separated requirements', () => {
    expect(selects('app=web,tier=front')).toEqual([true, false, false]);
    expect(selects('app=web,tier=back')).toEqual([false, false, false]);
  });

  it('tolerates whitespace between tokens', () => {
    expect(selects('  app  =  web ,  tier  ,  replicas > 1 ')).toEqual([true, false, false]);
    expect(selects('app   in(  web ,db )')).toEqual([true, true, false]);
  });

  it('compares with the empty value when = or == has none', () => {
    expect(parseLabelSelector('app=').requirements[0]).toEqual({ key: 'app', operator: 'Equals', values: [''] });
    expect(parseLabelSelector('app==').requirements[0]).toEqual({ key: 'app', operator: 'Equals', values: [''] });
    expect(matchesLabels(parseLabelSelector('app='), { app: '' })).toBe(true);
  });

  it('accepts prefixed keys', () => {
    expect(matchesLabels(parseLabelSelector('example.com/role=x'), { 'example.com/role': 'x' })).toBe(true);
  });

  it('treats undefined labels as an empty set', () => {
    expect(matchesLabels(parseLabelSelector('!a'), undefined)).toBe(true);
  });

  const malformed: [string, string][] = [
    ['a in (', 'an unclosed value set'],
    ['a notin (b', 'a value set without its closing parenthesis'],
    ['=b', 'an operator without a key'],
    ['a!', 'a lone !'],
    ['a in a', 'in without parentheses'],
    ['a in ()', 'an empty value set'],
    ['bad key=v', 'a key with a space'],
    ['k$y=v', 'a key with a bad character'],
    ['-k=v', 'a key starting with a dash'],
    ['a/b/c=v', 'a key with two slashes'],
    ['k=bad!', 'a value with a bad character'],
    ['k=' + 'v'.repeat(64), 'a value over 63 characters'],
    ['k>x', 'a non-integer comparison'],
    ['k>', 'a comparison without a value'],
    ['a=b,', 'a trailing comma'],
    [',a=b', 'a leading comma'],
    ['a=b c=d', 'two requirements without a comma'],
    ['!a=b', 'a negated key with an operator'],
    ['(a)', 'a parenthesis where a key belongs'],
  ];

  for (const [text, what] of malformed) {
    it(`rejects ${what} (${JSON.stringify(text.slice(0, 20))}) with 400 BadRequest`, () => {
      let caught: unknown;
      try {
        parseLabelSelector(text);
      } catch (error) {
        caught = error;
      }
      expect(isStatusError(caught, 'BadRequest')).toBe(true);
      expect((caught as Error).message).toMatch(/^unable to parse requirement: /);
    });
  }
});

describe('formatLabelSelector', () => {
  it('writes text that parses back to the same selector', () => {
    const text = 'a=b,c!=d,e in (f,g),h notin (i),j,!k,l>1,m<2';
    const selector = parseLabelSelector(text);
    expect(formatLabelSelector(selector)).toBe(text);
    expect(parseLabelSelector(formatLabelSelector(selector))).toEqual(selector);
  });
});

describe('labelSelectorFromSpec', () => {
  it('turns matchLabels and matchExpressions into one selector', () => {
    const selector: LabelSelector = labelSelectorFromSpec({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['front', 'back'] },
        { key: 'canary', operator: 'DoesNotExist' },
      ],
    });
    expect(selector.requirements).toEqual([
      { key: 'app', operator: 'Equals', values: ['web'] },
      { key: 'tier', operator: 'In', values: ['front', 'back'] },
      { key: 'canary', operator: 'DoesNotExist', values: [] },
    ]);
    expect(matchesLabels(selector, web)).toBe(true);
    expect(matchesLabels(selector, { ...web, canary: 'yes' })).toBe(false);
  });

  it('selects everything with an empty spec', () => {
    expect(matchesLabels(labelSelectorFromSpec({}), db)).toBe(true);
  });

  it('matches like the parsed form of the same selector', () => {
    const fromSpec = labelSelectorFromSpec({ matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }, { key: 'replicas', operator: 'Exists' }] });
    const parsed = parseLabelSelector('app notin (web),replicas');
    for (const labels of [web, db, bare]) expect(matchesLabels(fromSpec, labels)).toBe(matchesLabels(parsed, labels));
  });

  it('rejects unknown operators, missing or extra values and bad keys with 400', () => {
    const specs: LabelSelectorSpec[] = [
      { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      { matchLabels: { 'bad key': 'v' } },
      { matchLabels: { k: 'bad value!' } },
    ];
    for (const spec of specs) {
      expect(() => labelSelectorFromSpec(spec)).toThrow(expect.objectContaining({ reason: 'BadRequest', code: 400 }));
    }
  });
});
