import { Controller, Get } from '@nestjs/common';
import { ANY_SCOPE, RequireScope } from '../auth/require-scope.decorator';
import { OpenApiDocumentService } from './openapi-document.service';
import type { OpenApiDocument } from './openapi.types';

/**
 * `GET /v1/openapi.json`: the OpenAPI 3.1 description of every HTTP route, generated from the
 * running app. Any valid token may read it: nestclaw has no read-only scope, and the document only
 * says what the open-source code already does, so no scope is worth demanding, but it is not public
 * either (secure by default: an unauthenticated caller learns nothing about the deployment).
 */
@Controller('v1/openapi.json')
export class OpenApiController {
  constructor(private readonly documents: OpenApiDocumentService) {}

  @RequireScope(ANY_SCOPE)
  @Get()
  document(): OpenApiDocument {
    return this.documents.get();
  }
}
