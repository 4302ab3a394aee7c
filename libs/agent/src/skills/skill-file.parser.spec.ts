import { checkSkillText, MAX_SKILL_BYTES, parseSkillFile } from './skill-file.parser';

describe('parseSkillFile', () => {
  it('reads name, description and required binaries and variables from the front matter', () => {
    const r = parseSkillFile('---\nname: pdf\ndescription: Read PDFs\nrequires:\n  bins: [pdftotext]\n  env: PDF_KEY\n---\n# PDF\n');
    expect(r).toEqual({ ok: true, meta: { name: 'pdf', description: 'Read PDFs', requires: { bins: ['pdftotext'], env: ['PDF_KEY'] } } });
  });

  it('takes a description with a colon literally instead of failing on YAML', () => {
    const r = parseSkillFile('---\nname: trip\ndescription: Plan a trip: flights, hotels\n---\n');
    expect(r).toMatchObject({ ok: true, meta: { description: 'Plan a trip: flights, hotels' } });
  });

  it('says what is wrong with a file without front matter or description', () => {
    expect(parseSkillFile('# just text')).toMatchObject({ ok: false, error: expect.stringContaining('no YAML front matter') });
    expect(parseSkillFile('---\nname: x\n---\n')).toMatchObject({ ok: false, error: expect.stringContaining('description') });
  });

  it('names a skill by its front matter, else by its folder, and refuses one over the size limit', () => {
    expect(checkSkillText('folder', '---\nname: pdf\ndescription: x\n---\n', 30)).toMatchObject({ ok: true, name: 'pdf' });
    expect(checkSkillText('folder', '---\ndescription: x\n---\n', 20)).toMatchObject({ ok: true, name: 'folder' });
    expect(checkSkillText('folder', '---\ndescription: x\n---\n', MAX_SKILL_BYTES + 1)).toMatchObject({
      ok: false,
      error: expect.stringContaining(`larger than ${MAX_SKILL_BYTES} bytes`),
    });
  });
});
