/*
 * Modular multiplication and exponentiation on GMP for the AnonCreds engine's products of powers
 * (shared/src/anoncreds/math/gmp-arithmetic.ts loads this addon on Node; workerd stays on BigInt).
 *
 * JavaScript API (Node-API 8, BigInt in and out):
 *   mulMod(a, b, n)  -> a * b mod n          a, b >= 0, n > 0
 *   powMod(b, e, n)  -> b^e mod n            b, e >= 0, n odd and > 1
 *   invert(a, n)     -> a^-1 mod n           a >= 0, n > 1; RangeError when gcd(a, n) != 1
 *   product(n, inputs, ops, result) -> the value of `result` mod n after a straight-line program
 *     of modular multiplications: `inputs` is an array of BigInts >= 0, `ops` an Int32Array of
 *     operand pairs (a, b), operation k computing a * b mod n (a == b squares). An operand
 *     x >= 0 is the result of operation x (an earlier one), x < 0 is inputs[-x - 1]; `result` is
 *     an operand too. One call per product of powers (`PowerProduct` in
 *     proof/exponentiation.ts), so that its multiplications cross Node-API once. Each value
 *     lives in a working integer from its first use to its last (inputs are read when first
 *     used), so a program of thousands of operations works in a few dozen integers that stay in
 *     the cache. An operand that refers to no input or earlier operation throws a RangeError.
 * A negative or non-BigInt argument, or a bad modulus, throws a RangeError / TypeError. Results
 * are canonical residues in [0, n). Neither is constant-time, like the BigInt code they replace
 * (the engine's README, "Side channels").
 *
 * Each Node environment (the main thread, every worker thread) has its own scratch integers,
 * kept between calls so that a call allocates only its result.
 */
#define NAPI_VERSION 8
#include <gmp.h>
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#if GMP_LIMB_BITS != 64 || GMP_NAIL_BITS != 0
#error "GMP limbs must be 64-bit words without nails (BigInt words are 64-bit)"
#endif

typedef struct {
  mpz_t a, b, n, r;
  /* the working integers of `product`, grown on demand and kept */
  mpz_t *slots;
  size_t capacity;
} scratch_t;

static void scratch_free(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  scratch_t *s = data;
  mpz_clears(s->a, s->b, s->n, s->r, NULL);
  for (size_t i = 0; i < s->capacity; i++) mpz_clear(s->slots[i]);
  free(s->slots);
  free(s);
}

/* Makes room for `count` working integers; 0 (with an error pending) when out of memory. */
static int reserve_slots(napi_env env, scratch_t *s, size_t count) {
  if (count <= s->capacity) return 1;
  mpz_t *slots = realloc(s->slots, count * sizeof(mpz_t));
  if (slots == NULL) {
    napi_throw_error(env, NULL, "out of memory");
    return 0;
  }
  s->slots = slots;
  for (size_t i = s->capacity; i < count; i++) mpz_init(s->slots[i]);
  s->capacity = count;
  return 1;
}

/* Words read in one Node-API call; longer BigInts take a second call once their length is known. */
#define FAST_WORDS 64

/* Reads a non-negative BigInt into z; on failure a JavaScript error is pending and 0 returned. */
static int read_natural(napi_env env, napi_value value, const char *name, mpz_t z) {
  int sign = 0;
  size_t count = FAST_WORDS;
  mp_limb_t *limbs = mpz_limbs_write(z, FAST_WORDS);
  if (napi_get_value_bigint_words(env, value, &sign, &count, (uint64_t *)limbs) != napi_ok) {
    napi_throw_type_error(env, NULL, name);
    return 0;
  }
  if (count > FAST_WORDS) {
    limbs = mpz_limbs_write(z, (mp_size_t)count);
    napi_get_value_bigint_words(env, value, &sign, &count, (uint64_t *)limbs);
  }
  mpz_limbs_finish(z, (mp_size_t)count);
  if (sign && mpz_sgn(z) != 0) {
    napi_throw_range_error(env, NULL, name);
    return 0;
  }
  return 1;
}

static napi_value to_bigint(napi_env env, const mpz_t z) {
  napi_value out = NULL;
  static const uint64_t zero = 0;
  size_t count = mpz_size(z);
  napi_create_bigint_words(env, 0, count > 0 ? count : 1, count > 0 ? (const uint64_t *)mpz_limbs_read(z) : &zero, &out);
  return out;
}

/* This call's first `count` arguments and this environment's scratch integers, or NULL with an error pending. */
static scratch_t *call_arguments(napi_env env, napi_callback_info info, size_t count, napi_value *argv, const char *usage) {
  size_t argc = count;
  scratch_t *s = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || napi_get_instance_data(env, (void **)&s) != napi_ok) return NULL;
  if (argc < count) {
    napi_throw_type_error(env, NULL, usage);
    return NULL;
  }
  return s;
}

/* Reads the modulus n > 0 into s->n; 0 with an error pending otherwise. */
static int read_modulus(napi_env env, napi_value value, scratch_t *s) {
  if (!read_natural(env, value, "n: expected a BigInt >= 0", s->n)) return 0;
  if (mpz_sgn(s->n) == 0) {
    napi_throw_range_error(env, NULL, "n: must be > 0");
    return 0;
  }
  return 1;
}

/* Reads the arguments (a, b, n) into s->a, s->b, s->n; NULL with an error pending when one is bad. */
static scratch_t *operands(napi_env env, napi_callback_info info, const char *a_error, const char *b_error) {
  napi_value argv[3];
  scratch_t *s = call_arguments(env, info, 3, argv, "expected three BigInts");
  if (s == NULL || !read_natural(env, argv[0], a_error, s->a) || !read_natural(env, argv[1], b_error, s->b) || !read_modulus(env, argv[2], s)) {
    return NULL;
  }
  return s;
}

static napi_value mul_mod(napi_env env, napi_callback_info info) {
  scratch_t *s = operands(env, info, "a: expected a BigInt >= 0", "b: expected a BigInt >= 0");
  if (s == NULL) return NULL;
  mpz_mul(s->r, s->a, s->b);
  mpz_tdiv_r(s->r, s->r, s->n);
  return to_bigint(env, s->r);
}

static napi_value pow_mod(napi_env env, napi_callback_info info) {
  scratch_t *s = operands(env, info, "base: expected a BigInt >= 0", "exponent: expected a BigInt >= 0");
  if (s == NULL) return NULL;
  if (mpz_cmp_ui(s->n, 1) == 0 || mpz_even_p(s->n)) {
    napi_throw_range_error(env, NULL, "n: must be odd and > 1");
    return NULL;
  }
  mpz_powm(s->r, s->a, s->b, s->n);
  return to_bigint(env, s->r);
}

static napi_value invert(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  scratch_t *s = call_arguments(env, info, 2, argv, "expected a and n (BigInts)");
  if (s == NULL || !read_natural(env, argv[0], "a: expected a BigInt >= 0", s->a) || !read_modulus(env, argv[1], s)) return NULL;
  if (mpz_cmp_ui(s->n, 1) == 0 || mpz_invert(s->r, s->a, s->n) == 0) {
    napi_throw_range_error(env, NULL, "value has no inverse modulo modulus");
    return NULL;
  }
  return to_bigint(env, s->r);
}

/* An operand of `product`: k >= 0 is the result of operation k, -k - 1 is inputs[k]. */
typedef int32_t operand_t;

/* Whether operand x is one of the `inputs` inputs or the result of an operation before `before`. */
static bool refers_before(operand_t x, size_t before, size_t inputs) {
  return x >= 0 ? (size_t)x < before : (size_t)(-(int64_t)x - 1) < inputs;
}

/* The slot holding operand x, reading an input into a free slot on its first use; -1 on error (pending). */
static int32_t materialize(napi_env env, scratch_t *s, napi_value inputs, operand_t x, int32_t *input_slot, int32_t *op_slot, int32_t *free_slots, size_t *free_count) {
  if (x >= 0) return op_slot[x];
  int32_t k = -x - 1;
  if (input_slot[k] >= 0) return input_slot[k];
  napi_value value;
  int32_t slot = free_slots[--*free_count];
  if (napi_get_element(env, inputs, (uint32_t)k, &value) != napi_ok || !read_natural(env, value, "inputs: expected BigInts >= 0", s->slots[slot])) return -1;
  input_slot[k] = slot;
  return slot;
}

static napi_value product(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  scratch_t *s = call_arguments(env, info, 4, argv, "expected n, inputs, ops and result");
  if (s == NULL || !read_modulus(env, argv[0], s)) return NULL;
  uint32_t input_count = 0;
  bool is_array = false;
  if (napi_is_array(env, argv[1], &is_array) != napi_ok || !is_array || napi_get_array_length(env, argv[1], &input_count) != napi_ok) {
    napi_throw_type_error(env, NULL, "inputs: expected an array of BigInts");
    return NULL;
  }
  napi_typedarray_type type;
  size_t length = 0;
  void *data = NULL;
  bool is_typedarray = false;
  if (napi_is_typedarray(env, argv[2], &is_typedarray) != napi_ok || !is_typedarray ||
      napi_get_typedarray_info(env, argv[2], &type, &length, &data, NULL, NULL) != napi_ok || type != napi_int32_array || length % 2 != 0) {
    napi_throw_type_error(env, NULL, "ops: expected an Int32Array of operand pairs");
    return NULL;
  }
  int32_t result = 0;
  if (napi_get_value_int32(env, argv[3], &result) != napi_ok) {
    napi_throw_type_error(env, NULL, "result: expected an operand");
    return NULL;
  }
  const operand_t *ops = data;
  size_t op_count = length / 2;
  /* every operand refers to an input or an earlier operation; `result` to any of them */
  for (size_t i = 0; i < op_count; i++) {
    if (!refers_before(ops[2 * i], i, input_count) || !refers_before(ops[2 * i + 1], i, input_count)) {
      napi_throw_range_error(env, NULL, "ops: an operand refers to no input or earlier operation");
      return NULL;
    }
  }
  if (!refers_before(result, op_count, input_count)) {
    napi_throw_range_error(env, NULL, "result: refers to no input or operation");
    return NULL;
  }
  /* last_use[x]: the last operation reading operand x, so that its slot is freed after it */
  size_t operands = input_count + op_count;
  int32_t *table = malloc((3 * operands + 1) * sizeof(int32_t));
  if (table == NULL || !reserve_slots(env, s, operands + 1)) {
    free(table);
    if (table == NULL) napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  int32_t *last_use = table, *input_slot = table + operands, *op_slot = input_slot + input_count, *free_slots = op_slot + op_count;
  for (size_t i = 0; i < operands; i++) last_use[i] = -1;
  for (size_t i = 0; i < input_count; i++) input_slot[i] = -1;
#define USE_INDEX(x) ((x) >= 0 ? input_count + (size_t)(x) : (size_t)(-(int64_t)(x) - 1))
  for (size_t i = 0; i < op_count; i++) last_use[USE_INDEX(ops[2 * i])] = last_use[USE_INDEX(ops[2 * i + 1])] = (int32_t)i;
  last_use[USE_INDEX(result)] = INT32_MAX;
  size_t free_count = operands + 1;
  for (size_t i = 0; i < free_count; i++) free_slots[i] = (int32_t)(free_count - 1 - i);
  napi_value out = NULL;
  for (size_t i = 0; i < op_count; i++) {
    operand_t a = ops[2 * i], b = ops[2 * i + 1];
    int32_t sa = materialize(env, s, argv[1], a, input_slot, op_slot, free_slots, &free_count);
    int32_t sb = sa < 0 ? -1 : materialize(env, s, argv[1], b, input_slot, op_slot, free_slots, &free_count);
    if (sb < 0) goto done;
    int32_t sd = free_slots[--free_count];
    /* the same slot twice: GMP squares */
    mpz_mul(s->slots[sd], s->slots[sa], s->slots[sb]);
    mpz_tdiv_r(s->slots[sd], s->slots[sd], s->n);
    op_slot[i] = sd;
    if (last_use[USE_INDEX(a)] == (int32_t)i) free_slots[free_count++] = sa;
    if (b != a && last_use[USE_INDEX(b)] == (int32_t)i) free_slots[free_count++] = sb;
  }
  int32_t sr = materialize(env, s, argv[1], result, input_slot, op_slot, free_slots, &free_count);
  if (sr >= 0) {
    mpz_tdiv_r(s->r, s->slots[sr], s->n);
    out = to_bigint(env, s->r);
  }
#undef USE_INDEX
done:
  free(table);
  return out;
}

NAPI_MODULE_INIT() {
  scratch_t *s = malloc(sizeof *s);
  if (s == NULL) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  mpz_inits(s->a, s->b, s->n, s->r, NULL);
  s->slots = NULL;
  s->capacity = 0;
  if (napi_set_instance_data(env, s, scratch_free, NULL) != napi_ok) return NULL;
  napi_value fn;
  napi_create_function(env, "mulMod", NAPI_AUTO_LENGTH, mul_mod, NULL, &fn);
  napi_set_named_property(env, exports, "mulMod", fn);
  napi_create_function(env, "powMod", NAPI_AUTO_LENGTH, pow_mod, NULL, &fn);
  napi_set_named_property(env, exports, "powMod", fn);
  napi_create_function(env, "invert", NAPI_AUTO_LENGTH, invert, NULL, &fn);
  napi_set_named_property(env, exports, "invert", fn);
  napi_create_function(env, "product", NAPI_AUTO_LENGTH, product, NULL, &fn);
  napi_set_named_property(env, exports, "product", fn);
  return exports;
}
