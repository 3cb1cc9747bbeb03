import { makeStatement } from '../corpus/corpus';
import { LAYOUTS } from '../corpus/layouts';
import { runTamperBench } from './tamper';
import { EditKind } from './tamper-edits';

/** A small seeded run of the tamper benchmark (npm run bench:tamper runs the whole set). */
describe('tamper bench, seeded', () => {
  it('catches each edit on generated statements and names the edited row, without alarms on the originals', async () => {
    const originals = [];
    // a sectioned statement (no running balance) and one with a balance on every row
    for (const layout of LAYOUTS.filter((l) => l.name === 'sectioned_unsigned' || l.name === 'signed_single_column')) {
      const item = await makeStatement(layout, 5, 14);
      originals.push({ name: item.name, bytes: item.bytes });
    }
    const kinds: EditKind[] = ['font_swap', 'white_box', 'balance_chain', 'row_delete', 'mupdf_redact_redraw'];
    const res = await runTamperBench(originals, { seed: 5, kinds });
    expect(res.originals).toBe(2);
    expect(res.contentAlarms).toEqual([]);
    for (const k of res.kinds) {
      // a balance chain needs a printed running balance: one of the two has none
      const made = k.kind === 'balance_chain' ? 1 : 2;
      expect({ kind: k.kind, made: k.made, damaged: k.damaged }).toEqual({ kind: k.kind, made, damaged: [] });
      expect({ kind: k.kind, named: k.named, misses: k.misses }).toEqual({ kind: k.kind, named: made, misses: [] });
    }
  });
});
