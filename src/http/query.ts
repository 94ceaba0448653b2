// Reading query parameters from the raw query string: a parameter given
// more than once is refused rather than resolved by picking one of its values.

import { ApiError } from '../http/errors.ts'

/** The single value of `name`, or null when absent. Repeated → 400 naming the parameter. */
export function singleParam(request: Request, name: string): string | null {
  const values = new URL(request.url).searchParams.getAll(name)
  if (values.length > 1) throw new ApiError('bad_request', { message: `Query parameter ${name} must be given once.` })
  return values[0] ?? null
}

/** Digits only (`^[0-9]+$`) within min–max, or the fallback when absent. */
export function integerParam(request: Request, name: string, range: { min: number; max: number; fallback: number }): number {
  const text = singleParam(request, name)
  if (text === null) return range.fallback
  if (!/^[0-9]{1,9}$/.test(text) || Number(text) < range.min || Number(text) > range.max) {
    throw new ApiError('bad_request', { message: `Query parameter ${name} must be an integer from ${range.min} to ${range.max}.` })
  }
  return Number(text)
}
