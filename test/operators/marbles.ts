// Shared by the operator suites: a TestScheduler that asserts with vitest's deep equality.
import { TestScheduler } from 'rxjs/testing';
import { expect } from 'vitest';

export function testScheduler(): TestScheduler {
  return new TestScheduler((actual: unknown, expected: unknown) => {
    expect(actual).toEqual(expected);
  });
}
