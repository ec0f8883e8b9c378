// C helpers for MatterCrypto; see include/shim.h for the contract of each function.
#include "shim.h"

#include <pthread.h>
#include <limits.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/ec.h>
#include <openssl/encoder.h>
#include <openssl/kdf.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>
#include <openssl/x509.h>

// Algorithms are fetched once: implicit fetches on every call cost more than a SHA-256 block.
static pthread_once_t algorithms_once = PTHREAD_ONCE_INIT;
static EVP_MD *sha256_md;
static EVP_MAC *hmac_mac;
static EVP_KDF *hkdf_kdf;
static EVP_KDF *pbkdf2_kdf;
static EVP_CIPHER *ccm_cipher;
static EVP_CIPHER *ctr_cipher;
static EC_GROUP *p256;

static void fetch_algorithms(void) {
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
    hmac_mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    hkdf_kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    pbkdf2_kdf = EVP_KDF_fetch(NULL, "PBKDF2", NULL);
    ccm_cipher = EVP_CIPHER_fetch(NULL, "AES-128-CCM", NULL);
    ctr_cipher = EVP_CIPHER_fetch(NULL, "AES-128-CTR", NULL);
    p256 = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
}

static int algorithms_ready(void) {
    pthread_once(&algorithms_once, fetch_algorithms);
    return sha256_md && hmac_mac && hkdf_kdf && pbkdf2_kdf && ccm_cipher && ctr_cipher && p256;
}

// MARK: Process exit

// OpenSSL frees its global locks and tables in an atexit handler by default. A process that
// exits while another thread is still inside OpenSSL (a Dispatch worker drawing random bytes for
// a WebSocket mask, say) then crashes in pthread_rwlock_wrlock on a freed lock, or hangs: seen as
// `matterctl add` ending with SIGSEGV after "Added ...". The process is ending anyway, so the
// cleanup is skipped. This must be the first OpenSSL initialization, hence a constructor.
__attribute__((constructor)) static void mh_openssl_skip_cleanup_at_exit(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

// OpenSSL treats NULL specially in several places (e.g. "no key set"); an empty buffer is passed
// as a pointer to this byte instead.
static const uint8_t empty_byte = 0;
#define NONNULL(p) ((p) != NULL ? (const void *)(p) : (const void *)&empty_byte)

// MARK: Entropy and memory

int mh_random_bytes(uint8_t *out, size_t len) {
    if (len == 0) return 1;
    return RAND_bytes(out, (int)len) == 1;
}

void mh_cleanse(void *ptr, size_t len) {
    if (ptr != NULL && len > 0) OPENSSL_cleanse(ptr, len);
}

void mh_free(void *ptr) { OPENSSL_free(ptr); }

// MARK: Hashes, MACs, KDFs

// SHA-1 only for the WebSocket handshake (RFC 6455 Sec-WebSocket-Accept), never for security.
int mh_sha1(const uint8_t *data, size_t len, uint8_t *out) {
    unsigned int out_len = 0;
    return EVP_Digest(NONNULL(data), len, out, &out_len, EVP_sha1(), NULL) == 1 && out_len == 20;
}

int mh_sha256(const uint8_t *data, size_t len, uint8_t *out) {
    if (!algorithms_ready()) return 0;
    unsigned int out_len = 0;
    return EVP_Digest(NONNULL(data), len, out, &out_len, sha256_md, NULL) == 1 && out_len == 32;
}

EVP_MD_CTX *mh_sha256_new(void) {
    if (!algorithms_ready()) return NULL;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx != NULL && EVP_DigestInit_ex2(ctx, sha256_md, NULL) != 1) {
        EVP_MD_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

int mh_sha256_update(EVP_MD_CTX *ctx, const uint8_t *data, size_t len) {
    if (len == 0) return 1;
    return EVP_DigestUpdate(ctx, data, len) == 1;
}

int mh_sha256_final(const EVP_MD_CTX *ctx, uint8_t *out) {
    EVP_MD_CTX *copy = mh_sha256_copy(ctx);
    if (copy == NULL) return 0;
    unsigned int out_len = 0;
    int ok = EVP_DigestFinal_ex(copy, out, &out_len) == 1 && out_len == 32;
    EVP_MD_CTX_free(copy);
    return ok;
}

EVP_MD_CTX *mh_sha256_copy(const EVP_MD_CTX *ctx) {
    EVP_MD_CTX *copy = EVP_MD_CTX_new();
    if (copy != NULL && EVP_MD_CTX_copy_ex(copy, ctx) != 1) {
        EVP_MD_CTX_free(copy);
        return NULL;
    }
    return copy;
}

void mh_sha256_free(EVP_MD_CTX *ctx) { EVP_MD_CTX_free(ctx); }

int mh_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len, uint8_t *out) {
    if (!algorithms_ready()) return 0;
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(hmac_mac);
    if (ctx == NULL) return 0;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA256", 0),
        OSSL_PARAM_construct_end(),
    };
    size_t out_len = 0;
    int ok = EVP_MAC_init(ctx, NONNULL(key), key_len, params) == 1
        && EVP_MAC_update(ctx, NONNULL(msg), msg_len) == 1
        && EVP_MAC_final(ctx, out, &out_len, 32) == 1 && out_len == 32;
    EVP_MAC_CTX_free(ctx);
    return ok;
}

int mh_hkdf_sha256(const uint8_t *ikm, size_t ikm_len, const uint8_t *salt, size_t salt_len,
                   const uint8_t *info, size_t info_len, uint8_t *out, size_t out_len) {
    if (!algorithms_ready() || out_len == 0 || out_len > 255 * 32) return 0;
    // OpenSSL's HKDF refuses an empty key; RFC 5869 allows it. Extract by hand in that case
    // (PRK = HMAC(salt, "")) and let OpenSSL expand.
    uint8_t prk[32];
    int expand_only = ikm_len == 0;
    if (expand_only) {
        if (!mh_hmac_sha256(salt, salt_len, NULL, 0, prk)) return 0;
        ikm = prk;
        ikm_len = sizeof prk;
    }
    EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(hkdf_kdf);
    if (ctx == NULL) return 0;
    OSSL_PARAM params[6];
    size_t n = 0;
    params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, "SHA256", 0);
    params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MODE,
                                                   expand_only ? "EXPAND_ONLY" : "EXTRACT_AND_EXPAND", 0);
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikm_len);
    if (salt_len > 0 && !expand_only)
        params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_len);
    if (info_len > 0)
        params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_len);
    params[n] = OSSL_PARAM_construct_end();
    int ok = EVP_KDF_derive(ctx, out, out_len, params) == 1;
    EVP_KDF_CTX_free(ctx);
    OPENSSL_cleanse(prk, sizeof prk);
    return ok;
}

int mh_pbkdf2_sha256(const uint8_t *password, size_t password_len, const uint8_t *salt, size_t salt_len,
                     uint64_t iterations, uint8_t *out, size_t out_len) {
    if (!algorithms_ready() || iterations == 0 || out_len == 0) return 0;
    EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(pbkdf2_kdf);
    if (ctx == NULL) return 0;
    int pkcs5_mode = 1;  // 1 disables the SP 800-132 minimums (salt >= 16, iterations >= 1000, ...)
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, "SHA256", 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PASSWORD, (void *)NONNULL(password), password_len),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)NONNULL(salt), salt_len),
        OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_ITER, &iterations),
        OSSL_PARAM_construct_int(OSSL_KDF_PARAM_PKCS5, &pkcs5_mode),
        OSSL_PARAM_construct_end(),
    };
    int ok = EVP_KDF_derive(ctx, out, out_len, params) == 1;
    EVP_KDF_CTX_free(ctx);
    return ok;
}

// MARK: AES-128

// Shared CCM setup: nonce length and tag length must be set before the key and nonce.
static EVP_CIPHER_CTX *ccm_context(int encrypt, const uint8_t *key, const uint8_t *nonce, size_t nonce_len,
                                   const uint8_t *tag, size_t tag_len) {
    if (!algorithms_ready()) return NULL;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) return NULL;
    int ok = EVP_CipherInit_ex2(ctx, ccm_cipher, NULL, NULL, encrypt, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)nonce_len, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)tag_len, (void *)tag) == 1
        && EVP_CipherInit_ex2(ctx, NULL, key, nonce, encrypt, NULL) == 1;
    if (!ok) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

int mh_aes128_ccm_seal(const uint8_t *key, const uint8_t *nonce, size_t nonce_len,
                       const uint8_t *aad, size_t aad_len, const uint8_t *pt, size_t pt_len,
                       uint8_t *out, uint8_t *tag, size_t tag_len) {
    if (pt_len > INT32_MAX || aad_len > INT32_MAX) return 0;
    EVP_CIPHER_CTX *ctx = ccm_context(1, key, nonce, nonce_len, NULL, tag_len);
    if (ctx == NULL) return 0;
    uint8_t scratch[1];
    int len = 0;
    // CCM needs the total length first; an empty message still goes through one update so the
    // tag is computed.
    int ok = EVP_EncryptUpdate(ctx, NULL, &len, NULL, (int)pt_len) == 1
        && (aad_len == 0 || EVP_EncryptUpdate(ctx, NULL, &len, aad, (int)aad_len) == 1)
        && EVP_EncryptUpdate(ctx, pt_len ? out : scratch, &len, NONNULL(pt), (int)pt_len) == 1
        && EVP_EncryptFinal_ex(ctx, scratch, &len) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)tag_len, tag) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

int mh_aes128_ccm_open(const uint8_t *key, const uint8_t *nonce, size_t nonce_len,
                       const uint8_t *aad, size_t aad_len, const uint8_t *ct, size_t ct_len,
                       const uint8_t *tag, size_t tag_len, uint8_t *out) {
    if (ct_len > INT32_MAX || aad_len > INT32_MAX) return -1;
    EVP_CIPHER_CTX *ctx = ccm_context(0, key, nonce, nonce_len, tag, tag_len);
    if (ctx == NULL) return -1;
    uint8_t scratch[1];
    int len = 0;
    int result = -1;
    if (EVP_DecryptUpdate(ctx, NULL, &len, NULL, (int)ct_len) == 1
        && (aad_len == 0 || EVP_DecryptUpdate(ctx, NULL, &len, aad, (int)aad_len) == 1)) {
        // In CCM the single data update also checks the tag.
        result = EVP_DecryptUpdate(ctx, ct_len ? out : scratch, &len, NONNULL(ct), (int)ct_len) == 1 ? 1 : 0;
    }
    EVP_CIPHER_CTX_free(ctx);
    if (result != 1 && ct_len > 0) OPENSSL_cleanse(out, ct_len);
    return result;
}

int mh_aes128_ctr(const uint8_t *key, const uint8_t *iv16, const uint8_t *in, size_t len, uint8_t *out) {
    if (!algorithms_ready() || len > INT32_MAX) return 0;
    if (len == 0) return 1;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) return 0;
    int out_len = 0, final_len = 0;
    int ok = EVP_EncryptInit_ex2(ctx, ctr_cipher, key, iv16, NULL) == 1
        && EVP_EncryptUpdate(ctx, out, &out_len, in, (int)len) == 1
        && EVP_EncryptFinal_ex(ctx, out + out_len, &final_len) == 1
        && (size_t)(out_len + final_len) == len;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

// MARK: P-256 group arithmetic

static EC_POINT *load_point(const uint8_t *bytes, size_t len, BN_CTX *bn) {
    // Only the SEC1 forms Matter uses: 04||X||Y or 02/03||X (OpenSSL would also take hybrid 06/07).
    if (bytes == NULL || !((len == 65 && bytes[0] == 0x04) || (len == 33 && (bytes[0] == 0x02 || bytes[0] == 0x03))))
        return NULL;
    EC_POINT *point = EC_POINT_new(p256);
    if (point == NULL) return NULL;
    if (EC_POINT_oct2point(p256, point, bytes, len, bn) != 1
        || EC_POINT_is_at_infinity(p256, point)
        || EC_POINT_is_on_curve(p256, point, bn) != 1) {
        EC_POINT_free(point);
        return NULL;
    }
    return point;
}

// Returns 1, -2 for the point at infinity (it has no 65-byte form), 0 on error.
static int store_point(const EC_POINT *point, uint8_t *out65, BN_CTX *bn) {
    if (EC_POINT_is_at_infinity(p256, point)) return -2;
    return EC_POINT_point2oct(p256, point, POINT_CONVERSION_UNCOMPRESSED, out65, 65, bn) == 65;
}

int mh_p256_point_is_valid(const uint8_t *point, size_t len) {
    if (!algorithms_ready()) return 0;
    BN_CTX *bn = BN_CTX_new();
    if (bn == NULL) return 0;
    EC_POINT *p = load_point(point, len, bn);
    int ok = p != NULL;
    EC_POINT_free(p);
    BN_CTX_free(bn);
    return ok;
}

int mh_p256_point_normalize(const uint8_t *point, size_t len, uint8_t *out65) {
    if (!algorithms_ready()) return 0;
    BN_CTX *bn = BN_CTX_new();
    if (bn == NULL) return 0;
    EC_POINT *p = load_point(point, len, bn);
    int ok = p != NULL && store_point(p, out65, bn) == 1;
    EC_POINT_free(p);
    BN_CTX_free(bn);
    return ok;
}

int mh_p256_mul(const uint8_t *g_scalar, const uint8_t *point, const uint8_t *p_scalar, uint8_t *out65) {
    if (!algorithms_ready() || (g_scalar == NULL && (point == NULL || p_scalar == NULL))) return 0;
    BN_CTX *bn = BN_CTX_secure_new();
    if (bn == NULL) return 0;
    BIGNUM *g = g_scalar ? BN_secure_new() : NULL;
    BIGNUM *k = p_scalar ? BN_secure_new() : NULL;
    EC_POINT *p = point ? load_point(point, 65, bn) : NULL;
    EC_POINT *r = EC_POINT_new(p256);
    int result = 0;
    if (r != NULL && (g_scalar == NULL || (g != NULL && BN_bin2bn(g_scalar, 32, g) != NULL))
        && (point == NULL || (p != NULL && k != NULL && BN_bin2bn(p_scalar, 32, k) != NULL))
        && EC_POINT_mul(p256, r, g, p, k, bn) == 1) {
        result = store_point(r, out65, bn);
    }
    EC_POINT_free(r);
    EC_POINT_free(p);
    BN_clear_free(g);
    BN_clear_free(k);
    BN_CTX_free(bn);
    return result;
}

int mh_p256_add(const uint8_t *a, const uint8_t *b, uint8_t *out65) {
    if (!algorithms_ready()) return 0;
    BN_CTX *bn = BN_CTX_new();
    if (bn == NULL) return 0;
    EC_POINT *pa = load_point(a, 65, bn), *pb = load_point(b, 65, bn), *r = EC_POINT_new(p256);
    int result = 0;
    if (pa && pb && r && EC_POINT_add(p256, r, pa, pb, bn) == 1) result = store_point(r, out65, bn);
    EC_POINT_free(pa);
    EC_POINT_free(pb);
    EC_POINT_free(r);
    BN_CTX_free(bn);
    return result;
}

int mh_p256_negate(const uint8_t *a, uint8_t *out65) {
    if (!algorithms_ready()) return 0;
    BN_CTX *bn = BN_CTX_new();
    if (bn == NULL) return 0;
    EC_POINT *p = load_point(a, 65, bn);
    int result = 0;
    if (p && EC_POINT_invert(p256, p, bn) == 1) result = store_point(p, out65, bn);
    EC_POINT_free(p);
    BN_CTX_free(bn);
    return result;
}

int mh_p256_scalar_reduce(const uint8_t *in, size_t len, uint8_t *out32) {
    if (!algorithms_ready() || len > INT32_MAX) return 0;
    BN_CTX *bn = BN_CTX_secure_new();
    BIGNUM *a = BN_secure_new(), *r = BN_secure_new();
    int ok = bn && a && r && BN_bin2bn(NONNULL(in), (int)len, a) != NULL
        && BN_nnmod(r, a, EC_GROUP_get0_order(p256), bn) == 1
        && BN_bn2binpad(r, out32, 32) == 32;
    BN_clear_free(a);
    BN_clear_free(r);
    BN_CTX_free(bn);
    return ok;
}

int mh_p256_scalar_mul(const uint8_t *a32, const uint8_t *b32, uint8_t *out32) {
    if (!algorithms_ready()) return 0;
    BN_CTX *bn = BN_CTX_secure_new();
    BIGNUM *a = BN_secure_new(), *b = BN_secure_new(), *r = BN_secure_new();
    int ok = bn && a && b && r && BN_bin2bn(a32, 32, a) && BN_bin2bn(b32, 32, b)
        && BN_mod_mul(r, a, b, EC_GROUP_get0_order(p256), bn) == 1
        && BN_bn2binpad(r, out32, 32) == 32;
    BN_clear_free(a);
    BN_clear_free(b);
    BN_clear_free(r);
    BN_CTX_free(bn);
    return ok;
}

int mh_p256_scalar_is_valid(const uint8_t *a32) {
    if (!algorithms_ready()) return 0;
    BIGNUM *a = BN_secure_new();
    int ok = a && BN_bin2bn(a32, 32, a) && !BN_is_zero(a) && BN_cmp(a, EC_GROUP_get0_order(p256)) < 0;
    BN_clear_free(a);
    return ok;
}

// MARK: P-256 keys

EVP_PKEY *mh_p256_generate(void) { return EVP_EC_gen("P-256"); }

static EVP_PKEY *pkey_from_params(OSSL_PARAM_BLD *bld, int selection) {
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (params == NULL || ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1
        || EVP_PKEY_fromdata(ctx, &pkey, selection, params) != 1) {
        EVP_PKEY_free(pkey);
        pkey = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    return pkey;
}

EVP_PKEY *mh_p256_from_private(const uint8_t *scalar32) {
    if (!mh_p256_scalar_is_valid(scalar32)) return NULL;
    uint8_t pub[65];
    if (mh_p256_mul(scalar32, NULL, NULL, pub) != 1) return NULL;
    EVP_PKEY *pkey = NULL;
    BIGNUM *d = BN_secure_new();
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    if (d && bld && BN_bin2bn(scalar32, 32, d)
        && OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, SN_X9_62_prime256v1, 0)
        && OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub)
        && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, d)) {
        pkey = pkey_from_params(bld, EVP_PKEY_KEYPAIR);
    }
    OSSL_PARAM_BLD_free(bld);
    BN_clear_free(d);
    return pkey;
}

EVP_PKEY *mh_p256_from_public(const uint8_t *point, size_t len) {
    uint8_t pub[65];
    if (!mh_p256_point_normalize(point, len, pub)) return NULL;
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    if (bld && OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, SN_X9_62_prime256v1, 0)
        && OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub)) {
        pkey = pkey_from_params(bld, EVP_PKEY_PUBLIC_KEY);
    }
    OSSL_PARAM_BLD_free(bld);
    return pkey;
}

// Accepts only named-curve P-256 EC keys.
static int is_p256(const EVP_PKEY *pkey) {
    char name[64];
    size_t name_len = 0;
    return pkey != NULL && EVP_PKEY_is_a(pkey, "EC")
        && EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof name, &name_len) == 1
        && (strcmp(name, SN_X9_62_prime256v1) == 0 || strcmp(name, "P-256") == 0);
}

EVP_PKEY *mh_p256_decode_private(const uint8_t *data, size_t len, const char *format) {
    if (data == NULL || len == 0) return NULL;
    EVP_PKEY *pkey = NULL;
    OSSL_DECODER_CTX *dctx = OSSL_DECODER_CTX_new_for_pkey(&pkey, format, NULL, "EC", EVP_PKEY_KEYPAIR, NULL, NULL);
    if (dctx == NULL) return NULL;
    const unsigned char *cursor = data;
    size_t remaining = len;
    int ok = OSSL_DECODER_from_data(dctx, &cursor, &remaining) == 1;
    OSSL_DECODER_CTX_free(dctx);
    // DER must be exactly one structure; PEM may carry trailing text.
    if (!ok || !is_p256(pkey) || (strcmp(format, "DER") == 0 && remaining != 0)) {
        EVP_PKEY_free(pkey);
        return NULL;
    }
    // A public-only structure is not a private key. SEC1 and PKCS#8 may also carry a public
    // key that OpenSSL does not check against the scalar: a corrupted file would give a key
    // whose signatures fail under its own public key, so a mismatch is refused.
    uint8_t scalar[32], expected[65], embedded[65];
    int consistent = mh_p256_private_bytes(pkey, scalar) && mh_p256_scalar_is_valid(scalar)
        && mh_p256_mul(scalar, NULL, NULL, expected) == 1 && mh_p256_public_bytes(pkey, embedded)
        && memcmp(expected, embedded, sizeof expected) == 0;
    OPENSSL_cleanse(scalar, sizeof scalar);
    if (!consistent) {
        EVP_PKEY_free(pkey);
        return NULL;
    }
    return pkey;
}

EVP_PKEY *mh_p256_decode_spki(const uint8_t *data, size_t len) {
    if (data == NULL || len == 0 || len > INT32_MAX) return NULL;
    const unsigned char *cursor = data;
    EVP_PKEY *pkey = d2i_PUBKEY(NULL, &cursor, (long)len);
    if (pkey == NULL || !is_p256(pkey) || cursor != data + len) {
        EVP_PKEY_free(pkey);
        return NULL;
    }
    return pkey;
}

void mh_pkey_free(EVP_PKEY *pkey) { EVP_PKEY_free(pkey); }

int mh_p256_public_bytes(const EVP_PKEY *pkey, uint8_t *out65) {
    uint8_t buf[65];
    size_t len = 0;
    if (EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, buf, sizeof buf, &len) != 1)
        return 0;
    return mh_p256_point_normalize(buf, len, out65);
}

int mh_p256_private_bytes(const EVP_PKEY *pkey, uint8_t *out32) {
    BIGNUM *d = NULL;
    if (EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_PRIV_KEY, &d) != 1 || d == NULL) return 0;
    int ok = BN_bn2binpad(d, out32, 32) == 32;
    BN_clear_free(d);
    return ok;
}

int mh_pkey_encode(const EVP_PKEY *pkey, const char *structure, const char *format, int private_part,
                   uint8_t **out, size_t *out_len) {
    *out = NULL;
    *out_len = 0;
    OSSL_ENCODER_CTX *ectx = OSSL_ENCODER_CTX_new_for_pkey(
        pkey, private_part ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, format, structure, NULL);
    if (ectx == NULL) return 0;
    int ok = OSSL_ENCODER_CTX_get_num_encoders(ectx) > 0 && OSSL_ENCODER_to_data(ectx, out, out_len) == 1;
    OSSL_ENCODER_CTX_free(ectx);
    return ok;
}

// MARK: ECDSA and ECDH

int mh_ecdsa_sign(EVP_PKEY *pkey, const uint8_t *msg, size_t msg_len, uint8_t *der, size_t *der_len) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL) return 0;
    int ok = EVP_DigestSignInit_ex(ctx, NULL, "SHA256", NULL, NULL, pkey, NULL) == 1
        && EVP_DigestSign(ctx, der, der_len, NONNULL(msg), msg_len) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
}

int mh_ecdsa_verify(EVP_PKEY *pkey, const uint8_t *msg, size_t msg_len, const uint8_t *der, size_t der_len) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL) return -1;
    int result = -1;
    if (EVP_DigestVerifyInit_ex(ctx, NULL, "SHA256", NULL, NULL, pkey, NULL) == 1)
        result = EVP_DigestVerify(ctx, der, der_len, NONNULL(msg), msg_len) == 1 ? 1 : 0;
    EVP_MD_CTX_free(ctx);
    return result;
}

int mh_ecdh(EVP_PKEY *priv, EVP_PKEY *peer, uint8_t *out32) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, priv, NULL);
    if (ctx == NULL) return 0;
    size_t len = 32;
    // No second validation of the peer: every public EVP_PKEY here came through
    // mh_p256_from_public / mh_p256_decode_spki / a private key, which require a point on the
    // curve other than infinity, and P-256 has cofactor 1, so OpenSSL's extra n·Q = O check
    // (a full scalar multiplication) adds nothing.
    int ok = EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_derive_set_peer_ex(ctx, peer, 0) == 1
        && EVP_PKEY_derive(ctx, out32, &len) == 1 && len == 32;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

// MARK: Certificate revocation lists

#include <openssl/x509v3.h>
#include <time.h>

X509_CRL *mh_crl_decode(const uint8_t *der, size_t len) {
    if (der == NULL || len == 0 || len > LONG_MAX) return NULL;
    const unsigned char *p = der;
    X509_CRL *crl = d2i_X509_CRL(NULL, &p, (long)len);
    if (crl != NULL && p != der + len) {  // trailing bytes
        X509_CRL_free(crl);
        return NULL;
    }
    return crl;
}

void mh_crl_free(X509_CRL *crl) { X509_CRL_free(crl); }

int mh_crl_issuer(const X509_CRL *crl, uint8_t **out, size_t *out_len) {
    unsigned char *buf = NULL;
    int n = i2d_X509_NAME(X509_CRL_get_issuer(crl), &buf);
    if (n <= 0) return 0;
    *out = buf;
    *out_len = (size_t)n;
    return 1;
}

static int asn1_time_unix(const ASN1_TIME *t, int64_t *out) {
    struct tm tm;
    if (t == NULL || ASN1_TIME_to_tm(t, &tm) != 1) return 0;
    *out = (int64_t)timegm(&tm);
    return 1;
}

int mh_crl_times(const X509_CRL *crl, int64_t *this_update, int64_t *next_update, int *has_next) {
    if (!asn1_time_unix(X509_CRL_get0_lastUpdate(crl), this_update)) return 0;
    const ASN1_TIME *next = X509_CRL_get0_nextUpdate(crl);
    *has_next = next != NULL;
    *next_update = 0;
    return next == NULL || asn1_time_unix(next, next_update);
}

int mh_crl_is_ecdsa_sha256(const X509_CRL *crl) {
    return X509_CRL_get_signature_nid(crl) == NID_ecdsa_with_SHA256;
}

int mh_crl_authority_key_id(const X509_CRL *crl, uint8_t **out, size_t *out_len) {
    int critical = 0;
    AUTHORITY_KEYID *akid = X509_CRL_get_ext_d2i(crl, NID_authority_key_identifier, &critical, NULL);
    if (akid == NULL) return critical == -1 ? 0 : -1;  // critical -1: absent; else malformed or repeated
    int result = 0;
    if (akid->keyid != NULL && akid->keyid->length > 0) {
        *out_len = (size_t)akid->keyid->length;
        *out = OPENSSL_memdup(akid->keyid->data, (size_t)akid->keyid->length);
        result = *out != NULL;
    }
    AUTHORITY_KEYID_free(akid);
    return result;
}

int mh_crl_revoked_count(const X509_CRL *crl) {
    STACK_OF(X509_REVOKED) *revoked = X509_CRL_get_REVOKED((X509_CRL *)crl);  // read only
    return revoked == NULL ? 0 : sk_X509_REVOKED_num(revoked);
}

int mh_crl_revoked_serial(const X509_CRL *crl, int i, uint8_t *out, size_t cap, size_t *out_len, int *has_issuer) {
    STACK_OF(X509_REVOKED) *revoked = X509_CRL_get_REVOKED((X509_CRL *)crl);  // read only
    if (revoked == NULL || i < 0 || i >= sk_X509_REVOKED_num(revoked)) return 0;
    X509_REVOKED *entry = sk_X509_REVOKED_value(revoked, i);
    const ASN1_INTEGER *serial = X509_REVOKED_get0_serialNumber(entry);
    if (serial == NULL || serial->type == V_ASN1_NEG_INTEGER) return 0;
    size_t n = (size_t)serial->length;
    const uint8_t *data = serial->data;
    while (n > 0 && *data == 0) { data++; n--; }
    if (n > cap) return 0;
    memcpy(out, data, n);
    *out_len = n;
    *has_issuer = X509_REVOKED_get_ext_by_NID(entry, NID_certificate_issuer, -1) >= 0;
    return 1;
}

int mh_crl_verify(X509_CRL *crl, EVP_PKEY *pkey) {
    int r = X509_CRL_verify(crl, pkey);
    return r == 1 ? 1 : (r == 0 ? 0 : -1);
}

int mh_crl_issue(EVP_PKEY *pkey, const uint8_t *issuer, size_t issuer_len, int64_t this_update, int64_t next_update,
                 const uint8_t *const *serials, const size_t *serial_lens, size_t count,
                 const uint8_t *akid, size_t akid_len, uint8_t **out, size_t *out_len) {
    int ok = 0;
    X509_CRL *crl = X509_CRL_new();
    const unsigned char *p = issuer;
    X509_NAME *name = d2i_X509_NAME(NULL, &p, (long)issuer_len);
    ASN1_TIME *t1 = ASN1_TIME_set(NULL, (time_t)this_update);
    ASN1_TIME *t2 = ASN1_TIME_set(NULL, (time_t)next_update);
    AUTHORITY_KEYID *ak = AUTHORITY_KEYID_new();
    if (crl == NULL || name == NULL || t1 == NULL || t2 == NULL || ak == NULL) goto done;
    if (X509_CRL_set_version(crl, 1) != 1 || X509_CRL_set_issuer_name(crl, name) != 1
        || X509_CRL_set1_lastUpdate(crl, t1) != 1 || X509_CRL_set1_nextUpdate(crl, t2) != 1) goto done;
    for (size_t i = 0; i < count; i++) {
        X509_REVOKED *r = X509_REVOKED_new();
        ASN1_INTEGER *serial = ASN1_INTEGER_new();
        int fine = r != NULL && serial != NULL && ASN1_STRING_set(serial, serials[i], (int)serial_lens[i]) == 1
            && X509_REVOKED_set_serialNumber(r, serial) == 1 && X509_REVOKED_set_revocationDate(r, t1) == 1
            && X509_CRL_add0_revoked(crl, r) == 1;
        ASN1_INTEGER_free(serial);
        if (!fine) { X509_REVOKED_free(r); goto done; }
    }
    if (akid_len > 0) {
        ak->keyid = ASN1_OCTET_STRING_new();
        if (ak->keyid == NULL || ASN1_OCTET_STRING_set(ak->keyid, akid, (int)akid_len) != 1
            || X509_CRL_add1_ext_i2d(crl, NID_authority_key_identifier, ak, 0, X509V3_ADD_DEFAULT) != 1) goto done;
    }
    if (X509_CRL_sort(crl) != 1 || X509_CRL_sign(crl, pkey, EVP_sha256()) <= 0) goto done;
    unsigned char *buf = NULL;
    int n = i2d_X509_CRL(crl, &buf);
    if (n <= 0) goto done;
    *out = buf;
    *out_len = (size_t)n;
    ok = 1;
done:
    AUTHORITY_KEYID_free(ak);
    ASN1_TIME_free(t1);
    ASN1_TIME_free(t2);
    X509_NAME_free(name);
    X509_CRL_free(crl);
    return ok;
}
