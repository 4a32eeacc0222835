//! CONTRACT.md §5's REST table run through the `rest` protocol's consumer: a reference to
//! `UserResource` (and InteropService's default mapping) over plain HTTP, against any server
//! that serves the table (dubbo-rs's tri port, Java Dubbo 3.3's triple rest).

use std::time::Duration;

use dubbo_rs::core::rest::http_status_of_business;
use dubbo_rs::prelude::*;

use crate::cases::INTEROP_SERVICE;
use crate::reference_flags::ReferenceFlags;
use crate::report::Report;
use crate::rest::{user, UserResourceClient};
use crate::service::{InteropServiceClient, User};

/// The response attachment the `rest` protocol puts the HTTP status in.
const STATUS: &str = ":status";

/// The users `GET /users?limit&prefix` answers: the first `limit` ids whose name starts with
/// `prefix`, as the contract builds them.
fn expected_users(limit: usize, prefix: &str) -> Vec<User> {
    (0..100_000)
        .filter(|i| format!("user-{i}").starts_with(prefix))
        .take(limit)
        .map(user)
        .collect()
}

/// Runs the REST table against `url` (`rest://HOST:PORT`, or several `;`-separated).
pub async fn run_rest_cases(
    app: &Application,
    url: &str,
    flags: &ReferenceFlags,
    report: &mut Report,
) -> Result<(), DubboError> {
    let module = app.default_module();
    let options = ReferenceOptions::new(UserResourceClient::INTERFACE)
        .url(url)
        .version("1.0.0")
        .timeout(Duration::from_secs(10));
    let reference = module.refer(flags.apply(options)).await?;
    let c = UserResourceClient::new(reference.invoker());

    report.equal("rest GET /users/7", c.get_user(7).await, user(7));
    report.equal(
        "rest GET /users?limit=3&prefix=user-1",
        c.find_users(3, "user-1".into()).await,
        expected_users(3, "user-1"),
    );
    report.equal(
        "rest GET /users (defaults by value)",
        c.find_users(10, "user-".into()).await,
        expected_users(10, "user-"),
    );
    let posted = User {
        id: 42,
        name: Some("posted".into()),
        age: 33,
        tags: Some(vec!["a".into(), "b".into()]),
        attrs: None,
    };
    match c.create_user_full(posted.clone()).await {
        Ok((back, attachments)) => {
            report.equal::<_, String>("rest POST /users body", Ok(back), posted.clone());
            report.check(
                "rest POST /users 201 + Location",
                attachments.get_str(STATUS) == Some("201")
                    && attachments.get_str("location") == Some("/users/42"),
                || {
                    format!(
                        "status {:?}, location {:?}",
                        attachments.get_str(STATUS),
                        attachments.get_str("location")
                    )
                },
            );
        }
        Err(e) => report.check("rest POST /users", false, || e.to_string()),
    }
    match c.create_user_form(5, "formed".into(), 25).await {
        Ok(u) => report.check(
            "rest POST /users/form",
            u.id == 5 && u.name.as_deref() == Some("formed") && u.age == 25,
            || format!("{u:?}"),
        ),
        Err(e) => report.check("rest POST /users/form", false, || e.to_string()),
    }
    report.equal(
        "rest GET /users/9/greeting (fr)",
        c.greeting(9, Some("fr".into())).await,
        "Bonjour user-9".to_owned(),
    );
    report.equal(
        "rest GET /users/9/greeting",
        c.greeting(9, None).await,
        "Hello user-9".to_owned(),
    );
    match c.get_user(-1).await {
        Ok(u) => report.check("rest GET /users/-1 404", false, || {
            format!("answered {u:?}")
        }),
        Err(e) => {
            let status = e.as_business().and_then(http_status_of_business);
            report.check(
                "rest GET /users/-1 404",
                status == Some(404) && e.message().contains("-1"),
                || format!("status {status:?}, error {e}"),
            );
        }
    }
    match c.delete_user_full(3).await {
        Ok(((), attachments)) => report.check(
            "rest DELETE /users/3 204",
            attachments.get_str(STATUS) == Some("204"),
            || format!("status {:?}", attachments.get_str(STATUS)),
        ),
        Err(e) => report.check("rest DELETE /users/3 204", false, || e.to_string()),
    }

    // InteropService's default mapping: POST /{interface}/sayHello with ["world"].
    let options = ReferenceOptions::new(INTEROP_SERVICE)
        .url(url)
        .version("1.0.0")
        .timeout(Duration::from_secs(10));
    let reference = module.refer(flags.apply(options)).await?;
    let interop = InteropServiceClient::new(reference.invoker());
    report.equal(
        "rest POST /org.apache.dubbo.interop.InteropService/sayHello",
        interop.say_hello(Some("world".into())).await,
        Some("Hello world".into()),
    );
    Ok(())
}
