import { SetMetadata } from '@nestjs/common';

export const NOT_IN_API = 'nestclaw:not-in-api';
/** A controller that serves no API (the control UI's pages and assets): left out of /v1/openapi.json. */
export const NotInApi = () => SetMetadata(NOT_IN_API, true);
