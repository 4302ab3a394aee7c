import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'nestclaw:public';
/** Exempts a route from the bearer token (/health, and POST /v1/pair which trades a one-time code). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
