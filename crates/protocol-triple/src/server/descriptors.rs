//! Protobuf descriptors of the services every Triple server adds by itself, so that reflection
//! clients (grpcurl, Postman, grpcui) can describe and call them like the application's own.

use prost::Message;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{
    DescriptorProto, EnumDescriptorProto, EnumValueDescriptorProto, FieldDescriptorProto,
    FileDescriptorProto, FileDescriptorSet, MethodDescriptorProto, ServiceDescriptorProto,
};

/// The encoded `FileDescriptorSet` of `grpc/health/v1/health.proto` (`Check` and `Watch`).
pub(crate) fn health() -> Vec<u8> {
    let serving_status = EnumDescriptorProto {
        name: Some("ServingStatus".into()),
        value: ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"]
            .iter()
            .zip(0..)
            .map(|(name, number)| EnumValueDescriptorProto {
                name: Some((*name).into()),
                number: Some(number),
                options: None,
            })
            .collect(),
        ..Default::default()
    };
    let file = FileDescriptorProto {
        name: Some("grpc/health/v1/health.proto".into()),
        package: Some("grpc.health.v1".into()),
        message_type: vec![
            message(
                "HealthCheckRequest",
                vec![field("service", 1, Type::String, None)],
            ),
            DescriptorProto {
                enum_type: vec![serving_status],
                ..message(
                    "HealthCheckResponse",
                    vec![field(
                        "status",
                        1,
                        Type::Enum,
                        Some(".grpc.health.v1.HealthCheckResponse.ServingStatus"),
                    )],
                )
            },
        ],
        service: vec![ServiceDescriptorProto {
            name: Some("Health".into()),
            method: vec![method("Check", false), method("Watch", true)],
            options: None,
        }],
        syntax: Some("proto3".into()),
        ..Default::default()
    };
    FileDescriptorSet { file: vec![file] }.encode_to_vec()
}

fn message(name: &str, fields: Vec<FieldDescriptorProto>) -> DescriptorProto {
    DescriptorProto {
        name: Some(name.into()),
        field: fields,
        ..Default::default()
    }
}

fn field(name: &str, number: i32, kind: Type, type_name: Option<&str>) -> FieldDescriptorProto {
    FieldDescriptorProto {
        name: Some(name.into()),
        number: Some(number),
        label: Some(Label::Optional as i32),
        r#type: Some(kind as i32),
        type_name: type_name.map(Into::into),
        json_name: Some(name.into()),
        ..Default::default()
    }
}

fn method(name: &str, server_streaming: bool) -> MethodDescriptorProto {
    MethodDescriptorProto {
        name: Some(name.into()),
        input_type: Some(".grpc.health.v1.HealthCheckRequest".into()),
        output_type: Some(".grpc.health.v1.HealthCheckResponse".into()),
        server_streaming: Some(server_streaming),
        ..Default::default()
    }
}
