import { DogsledError } from '../../service/errors.js';
import type { CliContext } from '../context.js';
export async function waitCommand(_id: string, _flags: object, _ctx: CliContext): Promise<number> {
  throw new DogsledError('wait: being built');
}
