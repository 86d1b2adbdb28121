import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

export interface Failure {
  message: string;
  code?: string;
  details?: { field: string; message: string }[];
}

/** Asserts the status and the failure envelope (exact keys: success, error) and returns `error`. */
export function expectFailure(response: LightMyRequestResponse, status: number): Failure {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json() as { success: boolean; error: Failure };
  expect(Object.keys(body).sort()).toEqual(['error', 'success']);
  expect(body.success).toBe(false);
  expect(typeof body.error.message).toBe('string');
  expect(JSON.stringify(body)).not.toMatch(/ at .+\.ts:\d+|node_modules|stack/);
  return body.error;
}

/** Asserts 200 (or `status`) and the success envelope, returning `data`. */
export function expectSuccess<T = Record<string, unknown>>(
  response: LightMyRequestResponse,
  status = 200,
): T {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json() as { success: boolean; data: T };
  expect(Object.keys(body).sort()).toEqual(['data', 'success']);
  expect(body.success).toBe(true);
  return body.data;
}

/** The spec's VALIDATION_FAILED body, with its details as `field: message` pairs for easy matching. */
export function expectValidationFailed(
  response: LightMyRequestResponse,
): { field: string; message: string }[] {
  const error = expectFailure(response, 400);
  expect(error.code).toBe('VALIDATION_FAILED');
  expect(error.message).toBe('Validation failed');
  expect(error.details?.length).toBeGreaterThan(0);
  return error.details ?? [];
}
