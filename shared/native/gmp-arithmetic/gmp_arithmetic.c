/*
 * Modular multiplication and exponentiation on GMP for the AnonCreds engine's products of powers
 * (shared/src/anoncreds/math/gmp-arithmetic.ts loads this addon on Node; workerd stays on BigInt).
 *
 * JavaScript API (Node-API 8, BigInt in and out):
 *   mulMod(a, b, n)  -> a * b mod n          a, b >= 0, n > 0
 *   powMod(b, e, n)  -> b^e mod n            b, e >= 0, n odd and > 1
 *   product(n, registers, ops, result) -> registers[result] mod n after a straight-line program
 *     of modular multiplications: `registers` holds BigInts >= 0 (inputs) and undefined
 *     (registers the program sets), `ops` is an Int32Array of triples (d, a, b) run in order,
 *     each registers[d] = registers[a] * registers[b] mod n (a == b squares). One call per
 *     product of powers (`PowerProduct` in proof/exponentiation.ts), so that its multiplications
 *     cross Node-API once. Reading a register before it is set throws a RangeError.
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
#include <stdlib.h>

#if GMP_LIMB_BITS != 64 || GMP_NAIL_BITS != 0
#error "GMP limbs must be 64-bit words without nails (BigInt words are 64-bit)"
#endif

typedef struct {
  mpz_t a, b, n, r;
  /* the registers of `product` and whether each is set, grown on demand and kept */
  mpz_t *registers;
  bool *set;
  size_t capacity;
} scratch_t;

static void scratch_free(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  scratch_t *s = data;
  mpz_clears(s->a, s->b, s->n, s->r, NULL);
  for (size_t i = 0; i < s->capacity; i++) mpz_clear(s->registers[i]);
  free(s->registers);
  free(s->set);
  free(s);
}

/* Makes room for `count` registers; 0 (with an error pending) when out of memory. */
static int reserve_registers(napi_env env, scratch_t *s, size_t count) {
  if (count <= s->capacity) return 1;
  mpz_t *registers = realloc(s->registers, count * sizeof(mpz_t));
  if (registers != NULL) s->registers = registers;
  bool *set = registers == NULL ? NULL : realloc(s->set, count * sizeof(bool));
  if (set == NULL) {
    napi_throw_error(env, NULL, "out of memory");
    return 0;
  }
  s->set = set;
  for (size_t i = s->capacity; i < count; i++) mpz_init(s->registers[i]);
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

static napi_value product(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  scratch_t *s = call_arguments(env, info, 4, argv, "expected n, registers, ops and result");
  if (s == NULL || !read_modulus(env, argv[0], s)) return NULL;
  uint32_t count = 0;
  bool is_array = false;
  if (napi_is_array(env, argv[1], &is_array) != napi_ok || !is_array || napi_get_array_length(env, argv[1], &count) != napi_ok) {
    napi_throw_type_error(env, NULL, "registers: expected an array of BigInts and undefined");
    return NULL;
  }
  if (!reserve_registers(env, s, count)) return NULL;
  for (uint32_t i = 0; i < count; i++) {
    napi_value value;
    napi_valuetype type;
    if (napi_get_element(env, argv[1], i, &value) != napi_ok || napi_typeof(env, value, &type) != napi_ok) return NULL;
    s->set[i] = type == napi_bigint;
    if (s->set[i] && !read_natural(env, value, "registers: expected BigInts >= 0", s->registers[i])) return NULL;
    if (!s->set[i] && type != napi_undefined) {
      napi_throw_type_error(env, NULL, "registers: expected an array of BigInts and undefined");
      return NULL;
    }
  }
  napi_typedarray_type type;
  size_t length = 0;
  void *data = NULL;
  bool is_typedarray = false;
  if (napi_is_typedarray(env, argv[2], &is_typedarray) != napi_ok || !is_typedarray ||
      napi_get_typedarray_info(env, argv[2], &type, &length, &data, NULL, NULL) != napi_ok || type != napi_int32_array || length % 3 != 0) {
    napi_throw_type_error(env, NULL, "ops: expected an Int32Array of (destination, a, b) triples");
    return NULL;
  }
  int32_t result = 0;
  if (napi_get_value_int32(env, argv[3], &result) != napi_ok) {
    napi_throw_type_error(env, NULL, "result: expected a register number");
    return NULL;
  }
  const int32_t *ops = data;
  for (size_t i = 0; i < length; i += 3) {
    int32_t dst = ops[i], a = ops[i + 1], b = ops[i + 2];
    if (dst < 0 || a < 0 || b < 0 || (uint32_t)dst >= count || (uint32_t)a >= count || (uint32_t)b >= count || !s->set[a] || !s->set[b]) {
      napi_throw_range_error(env, NULL, "ops: a register out of range or read before it is set");
      return NULL;
    }
    /* the same operand twice: GMP squares */
    mpz_mul(s->registers[dst], s->registers[a], s->registers[b]);
    mpz_tdiv_r(s->registers[dst], s->registers[dst], s->n);
    s->set[dst] = true;
  }
  if (result < 0 || (uint32_t)result >= count || !s->set[result]) {
    napi_throw_range_error(env, NULL, "result: a register out of range or never set");
    return NULL;
  }
  mpz_tdiv_r(s->r, s->registers[result], s->n);
  return to_bigint(env, s->r);
}

NAPI_MODULE_INIT() {
  scratch_t *s = malloc(sizeof *s);
  if (s == NULL) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  mpz_inits(s->a, s->b, s->n, s->r, NULL);
  s->registers = NULL;
  s->set = NULL;
  s->capacity = 0;
  if (napi_set_instance_data(env, s, scratch_free, NULL) != napi_ok) return NULL;
  napi_value fn;
  napi_create_function(env, "mulMod", NAPI_AUTO_LENGTH, mul_mod, NULL, &fn);
  napi_set_named_property(env, exports, "mulMod", fn);
  napi_create_function(env, "powMod", NAPI_AUTO_LENGTH, pow_mod, NULL, &fn);
  napi_set_named_property(env, exports, "powMod", fn);
  napi_create_function(env, "product", NAPI_AUTO_LENGTH, product, NULL, &fn);
  napi_set_named_property(env, exports, "product", fn);
  return exports;
}
