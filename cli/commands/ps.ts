import { DogsledError } from '../../service/errors.js';
import type { CliContext } from '../context.js';
export async function psCommand(_flags: object, _ctx: CliContext): Promise<number> {
  throw new DogsledError('ps: being built');
}
