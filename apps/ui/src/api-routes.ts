import type { paths } from './api-schema.gen';

/**
 * The gateway's routes as the UI may call them, typed from its OpenAPI document
 * (api-schema.gen.ts, generated; test/e2e/openapi.e2e-spec.ts fails when it is stale). A path is a
 * documented one with its `{parameters}` filled in (and any query string); a body is the JSON the
 * route's validation pipe accepts. Answers are typed by each page: the document describes inputs.
 */
type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/** `/v1/cron/{id}/runs` → `/v1/cron/${string}/runs`. */
type Filled<P extends string> = P extends `${infer Head}{${string}}${infer Tail}` ? `${Head}${string}${Filled<Tail>}` : P;
type PathOf<P extends string> = Filled<P> | `${Filled<P>}?${string}`;

type Operation<P extends keyof paths, M extends HttpMethod> = NonNullable<paths[P][M]>;
type BodyOf<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } }
  ? { json: B }
  : Op extends { requestBody?: { content: { 'application/json': infer B } } }
    ? { json?: B }
    : { json?: undefined };

interface Options {
  /** A 401 that means a wrong code typed here (the security confirmation), not a session that ended. */
  wrongCodeOn401?: boolean;
}

/** How each method is asked for: GET is the default without a body, POST with one. */
type InitOf<Op, M extends HttpMethod> = M extends 'get'
  ? Options & { method?: 'GET'; json?: undefined }
  : M extends 'post'
    ? Options & BodyOf<Op> & (BodyOf<Op> extends { json: unknown } ? { method?: 'POST' } : { method: 'POST' })
    : Options & BodyOf<Op> & { method: Uppercase<M> };

type Signature<P extends string, Op, M extends HttpMethod> = M extends 'get'
  ? <T>(path: PathOf<P>, init?: InitOf<Op, M>) => Promise<T>
  : <T>(path: PathOf<P>, init: InitOf<Op, M>) => Promise<T>;

type Signatures = {
  [P in keyof paths & string]: {
    [M in HttpMethod]: [Operation<P, M>] extends [never] ? never : (overload: Signature<P, Operation<P, M>, M>) => void;
  }[HttpMethod];
}[keyof paths & string];

/** Every route's signature at once (an intersection of functions is their overloads). */
export type ApiCall = Signatures extends (overload: infer Each) => void ? Each : never;

/** The loosest form, which the implementation has. */
export type ApiInit = Options & { method?: string; json?: unknown };
