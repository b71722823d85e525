import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  STATUS_REASONS,
  StatusError,
  alreadyExists,
  badRequest,
  conflict,
  expired,
  fieldInvalid,
  fieldRequired,
  forbidden,
  gone,
  internal,
  invalid,
  isStatusError,
  methodNotAllowed,
  notAcceptable,
  notFound,
  optimisticLockMessage,
  requestEntityTooLarge,
  resourceVersionTooLarge,
  serverTimeout,
  serviceUnavailable,
  storageReadError,
  timeout,
  tooManyRequests,
  tooOldResourceVersion,
  unauthorized,
  unsupportedMediaType,
  type StatusReason,
} from '../../src/api/index.js';

const pods = { group: '', resource: 'pods' };
const deployments = { group: 'apps', resource: 'deployments' };

describe('StatusError', () => {
  it('serializes to the Status body clients decode', () => {
    expect(notFound(pods, 'foo').toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pods "foo" not found',
      reason: 'NotFound',
      details: { name: 'foo', kind: 'pods' },
      code: 404,
    });
  });

  it('leaves details out when there is nothing in them', () => {
    const status = badRequest('nope').toStatus();
    expect(status).not.toHaveProperty('details');
    expect(Object.keys(status)).toEqual(['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'code']);
  });

  it('takes its code from the catalogue unless one is given', () => {
    expect(new StatusError({ reason: 'Gone', message: 'x' }).code).toBe(410);
    expect(new StatusError({ reason: 'NotFound', code: 404, message: 'x' }).code).toBe(404);
  });

  it('is an Error with the message and reason', () => {
    const error = conflict(pods, 'a', 'b');
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('Operation cannot be fulfilled on pods "a": b');
    expect(error.name).toBe('StatusError');
  });

  it('is recognised by isStatusError, optionally by reason', () => {
    expect(isStatusError(notFound(pods, 'a'))).toBe(true);
    expect(isStatusError(notFound(pods, 'a'), 'NotFound')).toBe(true);
    expect(isStatusError(notFound(pods, 'a'), 'Conflict')).toBe(false);
    expect(isStatusError(new Error('x'))).toBe(false);
    expect(isStatusError('NotFound')).toBe(false);
  });
});

describe('the constructors', () => {
  const cases: [string, StatusError, StatusReason, number, string][] = [
    ['notFound (core)', notFound(pods, 'foo'), 'NotFound', 404, 'pods "foo" not found'],
    ['notFound (group)', notFound(deployments, 'x'), 'NotFound', 404, 'deployments.apps "x" not found'],
    ['alreadyExists', alreadyExists(deployments, 'x'), 'AlreadyExists', 409, 'deployments.apps "x" already exists'],
    [
      'conflict',
      conflict(pods, 'foo', optimisticLockMessage),
      'Conflict',
      409,
      'Operation cannot be fulfilled on pods "foo": the object has been modified; please apply your changes to the latest version and try again',
    ],
    ['badRequest', badRequest('bad'), 'BadRequest', 400, 'bad'],
    ['methodNotAllowed', methodNotAllowed('deletecollection', 'Namespace'), 'MethodNotAllowed', 405, 'deletecollection is not supported on resources of kind "Namespace"'],
    ['methodNotAllowed with a reason', methodNotAllowed('create', 'Pod', 'it needs a namespace'), 'MethodNotAllowed', 405, 'create is not supported on resources of kind "Pod": it needs a namespace'],
    ['notAcceptable', notAcceptable(['application/json', 'application/yaml']), 'NotAcceptable', 406, 'only the following media types are accepted: application/json, application/yaml'],
    ['requestEntityTooLarge (limit)', requestEntityTooLarge(3145728), 'RequestEntityTooLarge', 413, 'Request entity too large: limit is 3145728'],
    ['requestEntityTooLarge (text)', requestEntityTooLarge('body too big'), 'RequestEntityTooLarge', 413, 'Request entity too large: body too big'],
    ['unauthorized', unauthorized('Unauthorized'), 'Unauthorized', 401, 'Unauthorized'],
    ['unauthorized without text', unauthorized(''), 'Unauthorized', 401, 'not authorized'],
    ['forbidden', forbidden(pods, 'foo', 'no way'), 'Forbidden', 403, 'pods "foo" is forbidden: no way'],
    ['forbidden without a name', forbidden(pods, '', 'no way'), 'Forbidden', 403, 'pods is forbidden: no way'],
    ['forbidden without a resource', forbidden({ group: '', resource: '' }, '', 'no way'), 'Forbidden', 403, 'forbidden: no way'],
    ['expired', expired('too old'), 'Expired', 410, 'too old'],
    ['tooOldResourceVersion', tooOldResourceVersion(5, 10), 'Expired', 410, 'too old resource version: 5 (10)'],
    ['gone', gone('it is gone'), 'Gone', 410, 'it is gone'],
    ['timeout', timeout('slow', 3), 'Timeout', 504, 'Timeout: slow'],
    ['resourceVersionTooLarge', resourceVersionTooLarge(99, 12, 1), 'Timeout', 504, 'Timeout: Too large resource version: 99, current: 12'],
    ['tooManyRequests', tooManyRequests('slow down', 2), 'TooManyRequests', 429, 'slow down'],
    [
      'serverTimeout',
      serverTimeout(deployments, 'create', 2),
      'ServerTimeout',
      500,
      'The create operation against deployments.apps could not be completed at this time, please try again.',
    ],
    ['internal', internal(new Error('boom')), 'InternalError', 500, 'Internal error occurred: boom'],
    ['internal (non-Error)', internal('boom'), 'InternalError', 500, 'Internal error occurred: boom'],
    ['serviceUnavailable', serviceUnavailable('down'), 'ServiceUnavailable', 503, 'down'],
    ['storageReadError', storageReadError('corrupt'), 'StorageReadError', 500, 'corrupt'],
  ];

  for (const [name, error, reason, code, message] of cases) {
    it(`${name} answers ${code} ${reason} with its message format`, () => {
      const status = error.toStatus();
      expect(status.reason).toBe(reason);
      expect(status.code).toBe(code);
      expect(status.message).toBe(message);
      expect(error.code).toBe(STATUS_REASONS[reason].code);
    });
  }

  it('notFound names the object in details, with the resource as kind', () => {
    expect(notFound(deployments, 'x').toStatus().details).toEqual({ name: 'x', group: 'apps', kind: 'deployments' });
  });

  it('unsupportedMediaType names the type sent and the ones accepted', () => {
    const status = unsupportedMediaType('text/plain', ['application/json']).toStatus();
    expect(status).toMatchObject({ reason: 'UnsupportedMediaType', code: 415 });
    expect(status.message).toContain('"text/plain"');
    expect(status.message).toContain('application/json');
  });

  it('invalid lists one cause as field: message', () => {
    const status = invalid('Pod', 'foo', [fieldRequired('spec.containers')]).toStatus();
    expect(status).toMatchObject({ reason: 'Invalid', code: 422, message: 'Pod "foo" is invalid: spec.containers: Required value' });
    expect(status.details).toEqual({
      name: 'foo',
      kind: 'Pod',
      causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }],
    });
  });

  it('invalid brackets several causes and qualifies a kind by its group', () => {
    const status = invalid({ group: 'apps', kind: 'Deployment' }, 'web', [
      fieldRequired('spec.selector'),
      fieldInvalid('spec.replicas', -1, 'must be greater than or equal to 0'),
    ]).toStatus();
    expect(status.message).toBe(
      'Deployment.apps "web" is invalid: [spec.selector: Required value, spec.replicas: Invalid value: -1: must be greater than or equal to 0]',
    );
    expect(status.details?.group).toBe('apps');
  });

  it('timeouts and rate limits carry retryAfterSeconds', () => {
    expect(timeout('x', 3).toStatus().details).toEqual({ retryAfterSeconds: 3 });
    expect(tooManyRequests('x', 2).toStatus().details).toEqual({ retryAfterSeconds: 2 });
    expect(serverTimeout(pods, 'get', 1).toStatus().details?.retryAfterSeconds).toBe(1);
  });

  it('a too-large resourceVersion carries the ResourceVersionTooLarge cause', () => {
    expect(resourceVersionTooLarge(9, 3, 1).toStatus().details).toEqual({
      retryAfterSeconds: 1,
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    });
  });

  it('an expired list can carry the token to continue with in Status.metadata', () => {
    expect(expired('too old', 'abc').toStatus().metadata).toEqual({ continue: 'abc' });
    expect(expired('too old').toStatus().metadata).toEqual({});
  });

  it('internal keeps the original error as its cause and its message as a Status cause', () => {
    const original = new Error('boom');
    const error = internal(original);
    expect(error.cause).toBe(original);
    expect(error.toStatus().details).toEqual({ causes: [{ message: 'boom' }] });
  });
});

describe('docs/errors.md', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const documented = new Map(
    [...doc.matchAll(/^\| `([A-Za-z]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]),
  );

  it('documents every reason of the catalogue with its code', () => {
    for (const [reason, { code }] of Object.entries(STATUS_REASONS)) {
      expect(documented.get(reason), `docs/errors.md has no row for ${reason}`).toBe(code);
    }
  });

  it('documents no reason the catalogue lacks', () => {
    for (const reason of documented.keys()) expect(Object.keys(STATUS_REASONS)).toContain(reason);
  });
});
