import { describe, expect, it } from 'vitest';
import { generateName, validateName, validateNamePrefix, type NameRule } from '../../src/api/index.js';

const cases: Record<NameRule, { good: string[]; bad: string[] }> = {
  subdomain: {
    good: ['a', 'abc', 'a-b', 'a.b', '0abc', 'example.com', 'a1.b2-c3', 'a'.repeat(253), `${'a'.repeat(63)}.${'b'.repeat(63)}`],
    bad: ['', 'Upper', 'under_score', '-lead', 'trail-', '.lead', 'trail.', 'dots..double', 'a b', 'a/b', 'a'.repeat(254)],
  },
  label: {
    good: ['a', 'abc', 'a-b', '0abc', '123', 'a'.repeat(63)],
    bad: ['', 'a.b', 'Upper', '-lead', 'trail-', 'under_score', 'a'.repeat(64)],
  },
  dns1035: {
    good: ['a', 'abc', 'a-b', 'a1', 'a'.repeat(63)],
    bad: ['', '0abc', '1', 'a.b', 'Upper', '-lead', 'trail-', 'a'.repeat(64)],
  },
  pathSegment: {
    good: ['a', 'system:controller:foo', 'Upper_Case', 'with space', '...', 'a.b'],
    bad: ['.', '..', 'a/b', 'a%b', '%'],
  },
};

describe('validateName', () => {
  for (const [rule, { good, bad }] of Object.entries(cases) as [NameRule, { good: string[]; bad: string[] }][]) {
    for (const name of good) {
      it(`accepts ${JSON.stringify(name.slice(0, 30))} as a ${rule} name`, () => {
        expect(validateName(name, rule)).toEqual([]);
      });
    }
    for (const name of bad) {
      it(`rejects ${JSON.stringify(name.slice(0, 30))} as a ${rule} name`, () => {
        expect(validateName(name, rule).length).toBeGreaterThan(0);
      });
    }
  }

  it('says when a name is too long and shows the pattern when it is malformed', () => {
    expect(validateName('a'.repeat(254), 'subdomain')).toEqual(['must be no more than 253 characters']);
    expect(validateName('Upper', 'label')[0]).toContain('[a-z0-9]([-a-z0-9]*[a-z0-9])?');
    expect(validateName('1a', 'dns1035')[0]).toContain('[a-z]([-a-z0-9]*[a-z0-9])?');
    expect(validateName('a/b%c', 'pathSegment')).toEqual(["may not contain '/'", "may not contain '%'"]);
    expect(validateName('..', 'pathSegment')).toEqual(["may not be '..'"]);
  });
});

describe('validateNamePrefix', () => {
  it('accepts a trailing dash, which the random suffix will follow', () => {
    expect(validateNamePrefix('web-', 'subdomain')).toEqual([]);
    expect(validateNamePrefix('web-', 'dns1035')).toEqual([]);
  });

  it('still rejects what no suffix can repair', () => {
    expect(validateNamePrefix('Web-', 'subdomain').length).toBeGreaterThan(0);
    expect(validateNamePrefix('1web-', 'dns1035').length).toBeGreaterThan(0);
  });
});

describe('generateName', () => {
  it('appends five characters from the consonant-and-digit alphabet', () => {
    for (let i = 0; i < 50; i++) {
      const name = generateName('web-');
      expect(name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    }
  });

  it('cuts a long prefix to 58 characters so the name fits 63', () => {
    const name = generateName('a'.repeat(100));
    expect(name).toHaveLength(63);
    expect(name).toMatch(/^a{58}[^a]{5}$/);
  });

  it('gives different names on different calls', () => {
    const names = new Set(Array.from({ length: 20 }, () => generateName('x-')));
    expect(names.size).toBeGreaterThan(15);
  });
});
