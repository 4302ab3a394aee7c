import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { parse as parseYaml, parseDocument, stringify as stringifyYaml } from 'yaml';
import { NestclawError, replaceFileWhole } from '@nestclaw/common';
import { ConfigChange, diffConfig } from './config-diff';
import { parseConfigFile, validateConfig } from './config.loader';
import { CONFIRMABLE_SECTIONS, HOT_SECTIONS, HotSection, STATIC_SECTIONS } from './config.schema';
import { maskFileSecrets, redactConfig, restoreMaskedSecrets } from './config.secrets';
import { ConfigService } from './config.service';

/** One section on the settings page. */
export interface ConfigSectionView {
  name: string;
  /** Applied on save, without a restart. */
  hot: boolean;
  /** Allowlists and approvers in it wait for the owner's confirmation code (`/v1/config/security`). */
  confirmable: boolean;
  /** In force now (file, `${VAR}` and environment applied), secrets redacted. */
  effective: unknown;
  /** As written in the file, literal secrets masked; absent when the file does not set the section. */
  file?: unknown;
  /** `file` as YAML, the text an edit starts from ("" when the file does not set the section). */
  fileYaml: string;
}

export interface ConfigView {
  path: string;
  /** The file's version: a save names the version it was edited from, so two editors cannot overwrite each other. */
  version: string;
  sections: ConfigSectionView[];
}

/** What saving an edited section would change (preview) or changed (apply). */
export interface ConfigEdit {
  section: HotSection;
  changes: ConfigChange[];
  version: string;
}

const versionOf = (text: string): string => createHash('sha256').update(text).digest('base64url').slice(0, 16);

/**
 * The settings page's edits of the config file. Only hot sections are editable: an edit is checked
 * as the whole file would be (schema, `${VAR}`, environment), shown as a diff of the effective values,
 * and saved by writing the file and reloading it, the same path a hand edit takes. Sections that need
 * a restart are shown, never written from here.
 */
@Injectable()
export class ConfigEditor {
  /** One save at a time: each reads the file the previous one wrote. */
  private saving: Promise<unknown> = Promise.resolve();

  constructor(private readonly config: ConfigService) {}

  view(): ConfigView {
    const text = this.readFile();
    const raw = text === undefined ? {} : parseConfigFile(text, this.config.path);
    const effective = redactConfig(this.config.get()) as unknown as Record<string, unknown>;
    const names = [...HOT_SECTIONS, ...STATIC_SECTIONS];
    return {
      path: this.config.path,
      version: versionOf(text ?? ''),
      sections: names.map((name) => ({
        name,
        hot: (HOT_SECTIONS as readonly string[]).includes(name),
        confirmable: CONFIRMABLE_SECTIONS.includes(name),
        effective: effective[name],
        ...this.fileSection(name, raw[name]),
      })),
    };
  }

  private fileSection(name: string, raw: unknown): Pick<ConfigSectionView, 'file' | 'fileYaml'> {
    if (raw === undefined) return { fileYaml: '' };
    const file = maskFileSecrets(name, raw);
    return { file, fileYaml: stringifyYaml(file) };
  }

  /** The changes saving `yaml` as `section` would make, without saving. */
  preview(section: string, yaml: string, version: string): ConfigEdit {
    return this.plan(section, yaml, version).edit;
  }

  /** Writes the section to the file and applies it; the diff is what changed in force. */
  apply(section: string, yaml: string, version: string): Promise<ConfigEdit> {
    const run = this.saving.then(async () => {
      const { edit, text } = this.plan(section, yaml, version);
      this.writeFile(text);
      await this.config.reload();
      return { ...edit, version: versionOf(text) };
    });
    this.saving = run.catch(() => undefined);
    return run;
  }

  private plan(section: string, yaml: string, version: string): { edit: ConfigEdit; text: string } {
    const name = this.editable(section);
    const current = this.readFile();
    if (versionOf(current ?? '') !== version)
      throw new NestclawError('conflict', `${this.config.path} changed since this page read it: reload the settings and edit again`);
    const doc = parseDocument(current ?? '');
    const raw = current === undefined ? {} : parseConfigFile(current, this.config.path);
    const edited = restoreMaskedSecrets(name, this.parseSection(name, yaml), raw[name]);
    if (edited === undefined || edited === null) doc.delete(name);
    else doc.set(name, edited);
    const text = String(doc);
    const next = validateConfig(parseConfigFile(text, this.config.path), this.config.path, this.config.options.env);
    const before = this.config.get()[name];
    const shown = { before: redactConfig(this.config.get())[name], after: redactConfig(next)[name] };
    return { edit: { section: name, changes: diffConfig(before, next[name], shown).map((c) => prefixed(name, c)), version }, text };
  }

  private editable(section: string): HotSection {
    if ((HOT_SECTIONS as readonly string[]).includes(section)) return section as HotSection;
    if ((STATIC_SECTIONS as readonly string[]).includes(section))
      throw new NestclawError(
        'invalid_request',
        `"${section}" takes effect only after a restart, so it is not edited here: change it in ${this.config.path} and restart nestclaw`,
      );
    throw new NestclawError('not_found', `No configuration section "${section}" (editable: ${HOT_SECTIONS.join(', ')})`);
  }

  private parseSection(section: string, yaml: string): unknown {
    try {
      return parseYaml(yaml, { logLevel: 'error' }) as unknown;
    } catch (e) {
      throw new NestclawError('config_invalid', `"${section}" is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
    }
  }

  private readFile(): string | undefined {
    return existsSync(this.config.path) ? readFileSync(this.config.path, 'utf8') : undefined;
  }

  /** Whole or not at all (a crash mid-write must not leave half a config), with the file's permissions kept. */
  private writeFile(text: string): void {
    const path = this.config.path;
    try {
      replaceFileWhole(path, text, existsSync(path) ? statSync(path).mode & 0o777 : 0o600);
    } catch (e) {
      throw new NestclawError(
        'conflict',
        `${path} cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): it may be mounted read-only; change it where it is deployed`,
      );
    }
  }
}

const prefixed = (section: string, c: ConfigChange): ConfigChange => ({ ...c, path: c.path ? `${section}.${c.path}` : section });
