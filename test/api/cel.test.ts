import { describe, expect, it } from 'vitest';
import { admissionEnvironment, celSchemaOf, compileExpression, fromCel, policyExpressionCauses, toCel, typeCheckPolicy } from '../../src/api/index.js';

const run = (expression: string, variables: Record<string, unknown> = {}) => {
  const compiled = compileExpression(expression);
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.program({ object: null, oldObject: null, request: null, params: null, namespaceObject: null, authorizer: null, variables: {}, ...variables });
};

describe('JSON as CEL values', () => {
  it('makes integral numbers CEL ints and keeps the rest', () => {
    expect(toCel({ a: 3, b: 1.5, c: ['x', 2], d: null, e: true })).toEqual({ a: 3n, b: 1.5, c: ['x', 2n], d: null, e: true });
    expect(run('object.spec.replicas + 1', { object: toCel({ spec: { replicas: 3 } }) })).toBe(4n);
    expect(run('string(object.spec.replicas)', { object: toCel({ spec: { replicas: 3 } }) })).toBe('3');
    expect(fromCel({ n: 4n, l: [1n, 'a'] })).toEqual({ n: 4, l: [1, 'a'] });
  });

  it('keeps a __proto__ key as data, never as a prototype', () => {
    const decoded = JSON.parse('{"__proto__": {"polluted": 1}, "a": 1}') as object;
    const value = toCel(decoded) as Record<string, unknown>;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(run("'__proto__' in object", { object: value })).toBe(true);
  });

  it('converts one object once: the same value for the same object', () => {
    const object = { a: 1 };
    expect(toCel(object)).toBe(toCel(object));
  });
});

describe('compiling', () => {
  it('refuses syntax errors, undeclared variables and unknown functions, naming why', () => {
    const syntax = compileExpression('object.spec.replicas <=');
    expect(syntax.ok).toBe(false);
    expect(!syntax.ok && syntax.error).toMatch(/^compilation failed: /);
    expect(compileExpression('nosuch.x == 1').ok).toBe(false);
    expect(compileExpression("authorizer.nosuch('x')").ok).toBe(false);
    expect(compileExpression("object.spec.containers.all(c, c.image.startsWith('a')) && has(object.metadata.labels)").ok).toBe(true);
    expect(compileExpression('variables.anything == params.other').ok).toBe(true);
  });

  it('names every field of a policy whose expression does not compile', () => {
    const causes = policyExpressionCauses({
      spec: {
        variables: [{ name: 'v', expression: '1 +' }],
        matchConditions: [{ name: 'm', expression: 'true' }],
        validations: [{ expression: 'true', messageExpression: "'a' +" }],
        auditAnnotations: [{ key: 'k', valueExpression: ')' }],
      },
    });
    expect(causes.map((c) => c.field)).toEqual(['spec.variables[0].expression', 'spec.validations[0].messageExpression', 'spec.auditAnnotations[0].valueExpression']);
    expect(causes.every((c) => c.reason === 'FieldValueInvalid')).toBe(true);
  });
});

describe("Kubernetes' libraries", () => {
  it.each([
    ['[1, 2, 2].isSorted()', true],
    ['[2, 1].isSorted()', false],
    ["['a', 'b'].isSorted()", true],
    ['[1, 2, 3].sum()', 6n],
    ['[3, 1, 2].min()', 1n],
    ['[3, 1, 2].max()', 3n],
    ['[1, 2, 1].indexOf(1)', 0n],
    ['[1, 2, 1].lastIndexOf(1)', 2n],
    ["'a-b-c'.replace('-', '+')", 'a+b+c'],
    ["'abc'.charAt(1)", 'b'],
    ["'abc'.reverse()", 'cba'],
    ["'abc'.matches('^a')", true],
    ["'abc'.matches('b')", true],
    ["'abc'.matches('^b')", false],
    ["'x'.matches('matches')", false],
  ])('%s', (expression, expected) => {
    expect(run(expression)).toEqual(expected);
  });

  it('matches through RE2: linear on a pattern that makes backtracking engines explode, and a pattern RE2 refuses is a compile error', () => {
    // JavaScript's RegExp takes minutes on this; RE2 walks it once.
    expect(run("object.name.matches('(a+)+$')", { object: { name: `${'a'.repeat(20_000)}b` } })).toBe(false);
    expect(run("object.name.matches('(a+)+$')", { object: { name: 'aaa' } })).toBe(true);
    expect(run("object.name.matches('^(a+)+$')", { object: { name: `${'a'.repeat(20_000)}b` } })).toBe(false);
    const lookahead = compileExpression("object.name.matches('(?=a)')");
    expect(lookahead.ok).toBe(false);
    expect(!lookahead.ok && lookahead.error).toContain('invalid regular expression');
    // A pattern from params is checked when it runs: an evaluation error.
    expect(() => run('object.name.matches(params.pattern)', { object: { name: 'a' }, params: { pattern: '(a)\\1' } })).toThrow();
  });

  it('min of an empty list is an evaluation error, not a value', () => {
    expect(() => run('[].min()')).toThrow();
  });

  it('is one shared environment', () => {
    expect(admissionEnvironment()).toBe(admissionEnvironment());
  });
});

describe('type checking against a schema', () => {
  const deployment = celSchemaOf({
    type: 'object',
    properties: {
      metadata: { type: 'object', properties: { name: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } } },
      spec: { type: 'object', properties: { replicas: { type: 'integer' }, template: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } }, ports: { type: 'array', items: { 'x-kubernetes-int-or-string': true } } } },
    },
  });

  it('warns about undefined fields and mismatched types, per field, naming the kind', () => {
    const warnings = typeCheckPolicy(
      {
        validations: [
          { expression: 'object.replicas > 1' },
          { expression: 'object.spec.replicas <= 5' },
          { expression: "object.spec.replicas == 'x'" },
          { expression: "object.metadata.labels['a'] == 'b'" },
          { expression: 'object.spec.template.anything == 1' },
          { expression: 'object.spec.ports.all(p, p == 80 || p == "http")' },
        ],
      },
      [{ label: 'apps/v1, Kind=Deployment', schema: deployment }],
      undefined,
    );
    expect(warnings.map((w) => w.fieldRef)).toEqual(['spec.validations[0].expression', 'spec.validations[2].expression']);
    expect(warnings[0]!.warning).toMatch(/^apps\/v1, Kind=Deployment: ERROR: /);
  });

  it('checks nothing without a matched kind', () => {
    expect(typeCheckPolicy({ validations: [{ expression: 'object.nosuch' }] }, [], undefined)).toEqual([]);
  });
});
