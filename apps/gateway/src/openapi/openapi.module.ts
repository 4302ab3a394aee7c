import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { NestRouteReader } from './nest-route.reader';
import { OpenApiController } from './openapi.controller';
import { OpenApiDocumentService } from './openapi-document.service';

/** The API description at `GET /v1/openapi.json`, read from the app's own controllers. */
@Module({
  imports: [DiscoveryModule],
  controllers: [OpenApiController],
  providers: [NestRouteReader, OpenApiDocumentService],
})
export class OpenApiModule {}
