import { encodePacket, PacketReader } from '../src/pool/pipe-channel';

function collect(): { packets: unknown[]; reader: PacketReader } {
  const packets: unknown[] = [];
  return { packets, reader: new PacketReader((packet) => packets.push(packet)) };
}

describe('the pool pipe: one JSON packet per line', () => {
  it('reassembles packets that the pipe split, joined, or cut inside a multi-byte character', () => {
    const { packets, reader } = collect();
    const sent = [
      { type: 'ready', pid: 1 },
      [{ type: 'run', body: 'line\nbreak' }, { type: 'abort' }],
      { type: 'done', value: 'héllo ✓ 🥬' },
    ];
    const bytes = Buffer.from(sent.map(encodePacket).join(''));
    // Every split point, including the middle of the emoji's four bytes.
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      packets.length = 0;
      reader.push(bytes.subarray(0, cut));
      reader.push(bytes.subarray(cut));
      expect(packets).toEqual(sent);
    }
  });

  it('hands over nothing until a line is complete', () => {
    const { packets, reader } = collect();
    reader.push(Buffer.from('{"type":"re'));
    expect(packets).toEqual([]);
    reader.push(Buffer.from('ady"}\n{"type"'));
    expect(packets).toEqual([{ type: 'ready' }]);
  });

  it('skips a line that is not JSON and keeps the packets around it', () => {
    const { packets, reader } = collect();
    reader.push(Buffer.from(`${encodePacket({ n: 1 })}stray text from a task\n${encodePacket({ n: 2 })}`));
    expect(packets).toEqual([{ n: 1 }, { n: 2 }]);
  });
});
