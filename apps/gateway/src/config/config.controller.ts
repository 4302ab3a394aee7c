import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { z } from 'zod';
import { ConfigEditor } from '@nestclaw/config';
import type { Principal } from '@nestclaw/security';
import { AuditService } from '@nestclaw/tool';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ZodPipe } from '../http/zod-validation.pipe';

const sectionEdit = z
  .object({
    /** The section's new value as YAML, as the settings page shows it ("[redacted]" keeps a secret as it is). */
    yaml: z.string().max(256 * 1024),
    /** `version` from GET /v1/config: a save from a stale page is refused. */
    version: z.string().min(1).max(64),
  })
  .strict();
type SectionEdit = z.output<typeof sectionEdit>;
const sectionName = z.string().regex(/^[a-z_]{1,40}$/, 'a section name (lowercase letters and _)');

/**
 * The configuration as the settings page sees it: every section in force with secrets redacted, and
 * the hot sections edited with a diff before they are saved to the config file and applied.
 */
@Controller('v1/config')
@RequireScope('admin')
export class ConfigController {
  constructor(
    private readonly editor: ConfigEditor,
    private readonly audit: AuditService,
  ) {}

  @Get()
  view() {
    return this.editor.view();
  }

  @Post('sections/:section/preview')
  @HttpCode(200)
  preview(@Param('section', new ZodPipe(sectionName)) section: string, @Body(new ZodPipe(sectionEdit)) body: SectionEdit) {
    return this.editor.preview(section, body.yaml, body.version);
  }

  @Put('sections/:section')
  async apply(
    @Param('section', new ZodPipe(sectionName)) section: string,
    @Body(new ZodPipe(sectionEdit)) body: SectionEdit,
    @CurrentPrincipal() who: Principal,
  ) {
    const edit = await this.editor.apply(section, body.yaml, body.version);
    await this.audit.record({
      actor: who.id,
      action: 'config.change',
      target: `config.${edit.section}`,
      outcome: edit.changes.length ? 'applied' : 'unchanged',
      detail: { paths: edit.changes.map((c) => c.path) },
    });
    return edit;
  }
}
