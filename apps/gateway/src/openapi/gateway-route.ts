import type { RouteScope } from '../auth/require-scope.decorator';
import type { RouteInput } from './route-inputs';

/** One HTTP route the gateway serves, as its controller declares it. */
export interface GatewayRoute {
  /** The controller class name (`SessionsController`). */
  controller: string;
  /** The handler method name (`list`). */
  handler: string;
  /** Upper case, as Nest's RequestMethod names it (`GET`). */
  method: string;
  /** In Nest's form, with `:name` parameters (`/v1/sessions/:sessionId/messages`). */
  path: string;
  /** What the bearer guard demands: `public`, or the scope (`any` for every valid token). */
  access: RouteScope | 'public';
  /** The status Nest answers with on success; undefined when the handler sends the reply itself (@Res). */
  successStatus?: number;
  inputs: RouteInput[];
}
