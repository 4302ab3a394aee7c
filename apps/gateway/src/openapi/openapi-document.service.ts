import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { packageRoot } from '@nestclaw/common';
import { NestRouteReader } from './nest-route.reader';
import { buildOpenApiDocument } from './openapi-document';
import type { OpenApiDocument } from './openapi.types';

/**
 * Builds the document on the first request and keeps it: the routes cannot change while the
 * process runs, and a process nobody asks pays nothing at start-up.
 */
@Injectable()
export class OpenApiDocumentService {
  private document?: OpenApiDocument;

  constructor(private readonly routes: NestRouteReader) {}

  get(): OpenApiDocument {
    return (this.document ??= buildOpenApiDocument(this.routes.read(), packageInfo()));
  }
}

function packageInfo(): { name: string; version: string } {
  const { name, version } = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { name: string; version: string };
  return { name, version };
}
