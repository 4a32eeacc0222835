// Prints the access-key signature Java Dubbo's dubbo-auth computes, for the Rust unit test
// crates/core/src/filters/auth/tests.rs (signature_matches_java_dubbo_auth):
//   java -cp dubbo-interop-auth.jar SignVector.java SERVICE_KEY METHOD SECRET TIMESTAMP
// Run as a single-file source program, so nothing here is compiled by Maven.

import org.apache.dubbo.auth.utils.SignatureUtils;

public class SignVector {
    public static void main(String[] args) {
        if (args.length != 4) {
            System.err.println("usage: SignVector SERVICE_KEY METHOD SECRET TIMESTAMP");
            System.exit(2);
        }
        // AccessKeyAuthenticator.getSignature: "%s#%s#%s#%s" of service key, method, secret and
        // timestamp, signed with the secret.
        String text = String.format("%s#%s#%s#%s", args[0], args[1], args[2], args[3]);
        System.out.println(SignatureUtils.sign(text, args[2]));
    }
}
