import { DogsledError } from '../../service/errors.js';
import type { CliContext } from '../context.js';
export async function execCommand(_id: string, _command: string[], _ctx: CliContext): Promise<number> {
  throw new DogsledError('exec: being built');
}
