import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { z } from 'zod';
import { ZodPipe } from '../http/zod-validation.pipe';

/** One decorated handler argument that carries client input, with the schema its ZodPipe checks. */
export interface RouteInput {
  in: 'body' | 'query' | 'path';
  /** `@Param('id')` names one value; undefined for the whole body, query or parameter object. */
  name?: string;
  /** Undefined when no ZodPipe validates the argument (then it is only known as a string). */
  schema?: z.ZodType;
}

/** What a handler argument's metadata looks like under ROUTE_ARGS_METADATA (`<paramtype>:<index>`). */
interface RouteArg {
  data?: unknown;
  pipes?: unknown[];
}

const SOURCES: Partial<Record<RouteParamtypes, RouteInput['in']>> = {
  [RouteParamtypes.BODY]: 'body',
  [RouteParamtypes.QUERY]: 'query',
  [RouteParamtypes.PARAM]: 'path',
};

/**
 * The body, query and path arguments of one handler, read from the metadata @Body/@Query/@Param
 * leave on the controller class: the same metadata Nest's router uses to call the handler, so what
 * is described is what is validated. Other arguments (@Req, @Res, custom decorators) are skipped.
 */
export function routeInputs(controller: object, handlerName: string): RouteInput[] {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handlerName) ?? {}) as Record<string, RouteArg>;
  const inputs: RouteInput[] = [];
  for (const [key, arg] of Object.entries(args)) {
    const source = SOURCES[Number(key.split(':')[0]) as RouteParamtypes];
    if (!source) continue;
    const pipe = arg.pipes?.find((p): p is ZodPipe<z.ZodType> => p instanceof ZodPipe);
    inputs.push({ in: source, name: typeof arg.data === 'string' ? arg.data : undefined, schema: pipe?.schema });
  }
  return inputs;
}
