// Lines out of a file read in chunks, with memory bounded whatever the file holds: a line longer
// than `lineMax` bytes (a pasted file, a hostile or torn line) is dropped whole, never gathered. Pure:
// its reader does the I/O and hands it the chunks.

const NEWLINE = 0x0a;

export class LineSplitter {
  private carry: Buffer[] = [];
  private carried = 0;
  private skipping = false;

  constructor(private readonly lineMax: number) {}

  /** The whole lines `chunk` ends (without their newline), oldest first. */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end < 0) break;
      const piece = chunk.subarray(start, end);
      if (!this.skipping) {
        const line = this.carried === 0 ? piece : Buffer.concat([...this.carry, piece]);
        if (line.length <= this.lineMax) lines.push(line);
      }
      this.carry = [];
      this.carried = 0;
      this.skipping = false;
      start = end + 1;
    }
    if (start < chunk.length && !this.skipping) {
      // Copied: the caller may reuse its chunk's memory for the next read.
      this.carry.push(Buffer.from(chunk.subarray(start)));
      this.carried += chunk.length - start;
      if (this.carried > this.lineMax) {
        this.carry = [];
        this.carried = 0;
        this.skipping = true;
      }
    }
    return lines;
  }

  /** The last line when the input ended without its newline (a writer mid-append), if kept. */
  end(): Buffer | undefined {
    const last = this.skipping || this.carried === 0 ? undefined : Buffer.concat(this.carry);
    this.carry = [];
    this.carried = 0;
    this.skipping = false;
    return last;
  }
}
