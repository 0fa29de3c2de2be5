// OpenSSL's libcrypto (Debian's libssl-dev), for SHA-256 only: the trace checksum, sweep
// plan identities and the digests `files` and the `digest` key scheme name entries by.
// The one-shot SHA256() and the EVP digest API are the non-deprecated calls of OpenSSL 3.
#include <openssl/evp.h>
#include <openssl/sha.h>
