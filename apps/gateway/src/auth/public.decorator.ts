import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'nestclaw:public';
/** Exempts a route from the bearer token (only /health). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
