// C helpers for MatterCrypto over OpenSSL 3 libcrypto (EVP APIs only).
//
// OpenSSL hides several operations behind macros, variadic functions or OSSL_PARAM arrays whose
// key strings must outlive the call; those are wrapped here so Swift sees plain functions over
// byte buffers. Every function returns 1 on success and 0 (or a documented negative value) on
// failure. Buffers may be NULL when their length is 0.
#ifndef MATTERHUB_COPENSSL_SHIM_H
#define MATTERHUB_COPENSSL_SHIM_H

#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1

#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>

// MARK: Entropy and memory

/// RAND_bytes into out.
int mh_random_bytes(uint8_t *out, size_t len);
/// OPENSSL_cleanse (a macro-free wrapper kept for symmetry).
void mh_cleanse(void *ptr, size_t len);

// MARK: Hashes, MACs, KDFs

/// One-shot SHA-1 (the WebSocket handshake only); out receives 20 bytes.
int mh_sha1(const uint8_t *data, size_t len, uint8_t *out);
/// One-shot SHA-256; out receives 32 bytes.
int mh_sha256(const uint8_t *data, size_t len, uint8_t *out);
/// A new EVP_MD_CTX initialised for SHA-256, or NULL.
EVP_MD_CTX *mh_sha256_new(void);
int mh_sha256_update(EVP_MD_CTX *ctx, const uint8_t *data, size_t len);
/// Finalises a copy of ctx so the original can keep absorbing; out receives 32 bytes.
int mh_sha256_final(const EVP_MD_CTX *ctx, uint8_t *out);
/// A copy of ctx, or NULL.
EVP_MD_CTX *mh_sha256_copy(const EVP_MD_CTX *ctx);
void mh_sha256_free(EVP_MD_CTX *ctx);

/// HMAC-SHA256; out receives 32 bytes.
int mh_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len, uint8_t *out);
/// HKDF-SHA256 (RFC 5869) extract-and-expand; an empty salt means HashLen zero bytes.
int mh_hkdf_sha256(const uint8_t *ikm, size_t ikm_len, const uint8_t *salt, size_t salt_len,
                   const uint8_t *info, size_t info_len, uint8_t *out, size_t out_len);
/// PBKDF2-HMAC-SHA256 without OpenSSL's SP 800-132 lower-bound checks (RFC 8018 semantics).
int mh_pbkdf2_sha256(const uint8_t *password, size_t password_len, const uint8_t *salt, size_t salt_len,
                     uint64_t iterations, uint8_t *out, size_t out_len);

// MARK: AES-128

/// AES-128-CCM encryption: out receives pt_len bytes of ciphertext, tag receives tag_len bytes.
int mh_aes128_ccm_seal(const uint8_t *key, const uint8_t *nonce, size_t nonce_len,
                       const uint8_t *aad, size_t aad_len, const uint8_t *pt, size_t pt_len,
                       uint8_t *out, uint8_t *tag, size_t tag_len);
/// AES-128-CCM decryption. Returns 1 on success, 0 when the tag does not verify, -1 on error.
int mh_aes128_ccm_open(const uint8_t *key, const uint8_t *nonce, size_t nonce_len,
                       const uint8_t *aad, size_t aad_len, const uint8_t *ct, size_t ct_len,
                       const uint8_t *tag, size_t tag_len, uint8_t *out);
/// AES-128-CTR with a full 16-byte initial counter block.
int mh_aes128_ctr(const uint8_t *key, const uint8_t *iv16, const uint8_t *in, size_t len, uint8_t *out);

// MARK: P-256 keys (EVP_PKEY)

/// A fresh P-256 key pair (EVP_EC_gen), or NULL.
EVP_PKEY *mh_p256_generate(void);
/// A key pair from a 32-byte big-endian scalar in [1, n-1], or NULL.
EVP_PKEY *mh_p256_from_private(const uint8_t *scalar32);
/// A public key from a SEC1 point (65-byte uncompressed or 33-byte compressed) on the curve, or NULL.
EVP_PKEY *mh_p256_from_public(const uint8_t *point, size_t len);
/// A P-256 key pair from DER or PEM (SEC1 ECPrivateKey or PKCS#8), or NULL.
/// format is "DER" or "PEM".
EVP_PKEY *mh_p256_decode_private(const uint8_t *data, size_t len, const char *format);
/// A P-256 public key from a DER SubjectPublicKeyInfo, or NULL.
EVP_PKEY *mh_p256_decode_spki(const uint8_t *data, size_t len);
void mh_pkey_free(EVP_PKEY *pkey);
/// Writes the uncompressed 65-byte public point.
int mh_p256_public_bytes(const EVP_PKEY *pkey, uint8_t *out65);
/// Writes the 32-byte big-endian private scalar.
int mh_p256_private_bytes(const EVP_PKEY *pkey, uint8_t *out32);
/// Encodes a key: structure is "PrivateKeyInfo" (PKCS#8), "type-specific" (SEC1) or
/// "SubjectPublicKeyInfo"; format is "DER" or "PEM". *out must be released with mh_free.
int mh_pkey_encode(const EVP_PKEY *pkey, const char *structure, const char *format, int private_part,
                   uint8_t **out, size_t *out_len);
/// OPENSSL_free (a macro).
void mh_free(void *ptr);

/// ECDSA-SHA256 signature over msg; writes DER into der (capacity *der_len, updated).
int mh_ecdsa_sign(EVP_PKEY *pkey, const uint8_t *msg, size_t msg_len, uint8_t *der, size_t *der_len);
/// 1 if der is a valid ECDSA-SHA256 signature of msg, 0 if not, -1 on error.
int mh_ecdsa_verify(EVP_PKEY *pkey, const uint8_t *msg, size_t msg_len, const uint8_t *der, size_t der_len);
/// ECDH: out receives the 32-byte x-coordinate of d*Q.
int mh_ecdh(EVP_PKEY *priv, EVP_PKEY *peer, uint8_t *out32);

// MARK: P-256 group arithmetic for SPAKE2+ (points are 65-byte uncompressed, scalars 32-byte BE)

/// 1 if the bytes encode a point on the curve (not infinity), else 0.
int mh_p256_point_is_valid(const uint8_t *point, size_t len);
/// Re-encodes a valid point (compressed or uncompressed) as 65 bytes.
int mh_p256_point_normalize(const uint8_t *point, size_t len, uint8_t *out65);
/// out = g_scalar*G + p_scalar*P; either term may be absent (NULL). Returns -2 if the result is
/// the point at infinity.
int mh_p256_mul(const uint8_t *g_scalar, const uint8_t *point, const uint8_t *p_scalar, uint8_t *out65);
/// out = a + b. Returns -2 if the result is the point at infinity.
int mh_p256_add(const uint8_t *a, const uint8_t *b, uint8_t *out65);
/// out = -a.
int mh_p256_negate(const uint8_t *a, uint8_t *out65);
/// out = in mod n for a big-endian integer of any length; out is 32 bytes.
int mh_p256_scalar_reduce(const uint8_t *in, size_t len, uint8_t *out32);
/// out = a * b mod n.
int mh_p256_scalar_mul(const uint8_t *a32, const uint8_t *b32, uint8_t *out32);
/// 1 if 0 < scalar < n.
int mh_p256_scalar_is_valid(const uint8_t *a32);

// MARK: Certificate revocation lists (X509_CRL), as the DCL publishes them

/// Parses a DER CertificateList; NULL when it is malformed or bytes follow it.
X509_CRL *mh_crl_decode(const uint8_t *der, size_t len);
void mh_crl_free(X509_CRL *crl);
/// The issuer Name, DER. *out must be released with mh_free.
int mh_crl_issuer(const X509_CRL *crl, uint8_t **out, size_t *out_len);
/// thisUpdate and nextUpdate as Unix seconds; *has_next is 0 when nextUpdate is absent.
int mh_crl_times(const X509_CRL *crl, int64_t *this_update, int64_t *next_update, int *has_next);
/// 1 when the signature algorithm is ecdsa-with-SHA256.
int mh_crl_is_ecdsa_sha256(const X509_CRL *crl);
/// The authority key identifier's keyIdentifier: 1 and the bytes when present, 0 when absent,
/// -1 when the extension is malformed. *out must be released with mh_free.
int mh_crl_authority_key_id(const X509_CRL *crl, uint8_t **out, size_t *out_len);
/// The number of revoked entries.
int mh_crl_revoked_count(const X509_CRL *crl);
/// The serial number of entry i as an unsigned big-endian magnitude (at most cap bytes).
/// *has_issuer is 1 when the entry has a certificateIssuer extension (indirect CRL).
int mh_crl_revoked_serial(const X509_CRL *crl, int i, uint8_t *out, size_t cap, size_t *out_len, int *has_issuer);
/// 1 when the CRL's signature verifies with pkey, 0 when it does not, -1 on error.
int mh_crl_verify(X509_CRL *crl, EVP_PKEY *pkey);
/// Issues a v2 CRL signed with ecdsa-with-SHA256 (for tests and the DCL stand-in): issuer is a
/// DER Name, serials are count big-endian magnitudes (lengths in serial_lens), akid (20 bytes)
/// becomes the authority key identifier. *out must be released with mh_free.
int mh_crl_issue(EVP_PKEY *pkey, const uint8_t *issuer, size_t issuer_len, int64_t this_update, int64_t next_update,
                 const uint8_t *const *serials, const size_t *serial_lens, size_t count,
                 const uint8_t *akid, size_t akid_len, uint8_t **out, size_t *out_len);

#endif
