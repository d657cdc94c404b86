/// The sink's contract as OpenAPI 3.1, served at `GET /openapi.json`: every endpoint, parameter, body, answer and
/// error body. `Tests/StepSyncSinkTests/OpenAPIDocumentTests.swift` holds it to the router (a route without an
/// entry here fails) and sends its examples to a real sink; `.ci/schemathesis` fuzzes a running sink against it.
enum OpenAPIDocument {
    /// The document's UTF-8 bytes.
    static let bytes: [UInt8] = Array(text.utf8)

    /// The document.
    static let text = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "stepsync sink",
    "version": "1",
    "description": "The sink of stepsync (`stepsync serve`): stores health samples exactly once by uuid, durable before it answers. When the sink has a token, every endpoint but `/`, `/openapi.json` and `/health` needs `Authorization: Bearer <token>`. On a loopback bind, requests whose Host is not a loopback name are answered 421."
  },
  "servers": [
    {
      "url": "/"
    }
  ],
  "security": [
    {},
    {
      "bearerAuth": []
    }
  ],
  "paths": {
    "/": {
      "get": {
        "operationId": "dashboard",
        "summary": "The dashboard page",
        "security": [],
        "responses": {
          "200": {
            "description": "The dashboard: one self-contained HTML page (inline script and style, no other requests than this sink's JSON endpoints).",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          }
        }
      },
      "head": {
        "operationId": "dashboardHead",
        "summary": "The dashboard page's headers",
        "security": [],
        "responses": {
          "200": {
            "description": "Headers of the page, no body."
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          }
        }
      }
    },
    "/openapi.json": {
      "get": {
        "operationId": "openAPI",
        "summary": "This document",
        "security": [],
        "responses": {
          "200": {
            "description": "The OpenAPI 3.1 document of the sink.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          }
        }
      },
      "head": {
        "operationId": "openAPIHead",
        "summary": "This document's headers",
        "security": [],
        "responses": {
          "200": {
            "description": "Headers, no body."
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          }
        }
      }
    },
    "/health": {
      "get": {
        "operationId": "health",
        "summary": "Whether the storage can write",
        "security": [],
        "responses": {
          "200": {
            "description": "The storage can write.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Health"
                },
                "example": {
                  "status": "ok"
                }
              }
            }
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          },
          "503": {
            "description": "Writes fail now; the reason and since when (seconds since 1970).",
            "headers": {
              "Retry-After": {
                "$ref": "#/components/headers/RetryAfter"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Health"
                }
              }
            }
          }
        }
      },
      "head": {
        "operationId": "healthHead",
        "summary": "Whether the storage can write (status only)",
        "security": [],
        "responses": {
          "200": {
            "description": "The storage can write."
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          },
          "503": {
            "description": "Writes fail now."
          }
        }
      }
    },
    "/steps": {
      "get": {
        "operationId": "listSteps",
        "summary": "A page of step-count samples, in arrival order",
        "parameters": [
          {
            "$ref": "#/components/parameters/limit"
          },
          {
            "$ref": "#/components/parameters/cursor"
          },
          {
            "$ref": "#/components/parameters/from"
          },
          {
            "$ref": "#/components/parameters/to"
          }
        ],
        "responses": {
          "200": {
            "description": "A page.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/StepPage"
                },
                "example": {
                  "storedCount": 1,
                  "samples": [
                    {
                      "uuid": "D67311EE-FACB-41AA-B202-8D266F3EDE18",
                      "startDate": "2025-05-11T16:27:22.000Z",
                      "endDate": "2025-05-11T16:29:03.000Z",
                      "count": 176,
                      "sourceBundleId": "com.apple.health",
                      "sourceDeviceName": "iPhone"
                    }
                  ],
                  "nextCursor": null
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          },
          "503": {
            "$ref": "#/components/responses/Unavailable"
          }
        }
      },
      "post": {
        "operationId": "postSteps",
        "summary": "Store step-count samples (HealthStepsSync's format)",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/StepsRequest"
              },
              "example": {
                "samples": [
                  {
                    "uuid": "D67311EE-FACB-41AA-B202-8D266F3EDE18",
                    "startDate": "2025-05-11T16:27:22.000Z",
                    "endDate": "2025-05-11T16:29:03.000Z",
                    "count": 176,
                    "sourceBundleId": "com.apple.health",
                    "sourceDeviceName": "iPhone"
                  }
                ]
              }
            }
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/contentEncoding"
          }
        ],
        "responses": {
          "200": {
            "description": "Every sample is stored or was already stored (durable before this answer).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Saved"
                },
                "example": {
                  "saved": 1,
                  "message": "Success",
                  "inserted": 1,
                  "duplicates": 0
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "415": {
            "$ref": "#/components/responses/UnsupportedMediaType"
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          },
          "503": {
            "$ref": "#/components/responses/Unavailable"
          }
        }
      },
      "delete": {
        "operationId": "clearSteps",
        "summary": "Delete every step-count sample",
        "responses": {
          "200": {
            "description": "The samples are deleted (durable).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Cleared"
                },
                "example": {
                  "message": "Deleted 3 samples",
                  "deleted": 3
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          },
          "503": {
            "$ref": "#/components/responses/Unavailable"
          }
        }
      }
    },
    "/steps/delete": {
      "post": {
        "operationId": "deleteSteps",
        "summary": "Delete step-count samples by uuid",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/DeleteStepsRequest"
              },
              "example": {
                "uuids": [
                  "D67311EE-FACB-41AA-B202-8D266F3EDE18"
                ]
              }
            }
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/contentEncoding"
          }
        ],
        "responses": {
          "200": {
            "description": "The samples found are deleted (tombstones, durable).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/DeleteOutcome"
                },
                "example": {
                  "deleted": 1,
                  "missing": 0
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "415": {
            "$ref": "#/components/responses/UnsupportedMediaType"
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          },
          "503": {
            "$ref": "#/components/responses/Unavailable"
          }
        }
      }
    },
    "/steps/daily": {
      "get": {
        "operationId": "dailySteps",
        "summary": "Daily step totals counting a walk recorded by two devices once",
        "description": "Every local day `from`…`to` (at most 3,700 days) in `tz`; per moment only the highest-priority device counts. `from` and `to` go together; without both, every day from the oldest stored step sample's to the newest's (at most 3,700, ending on the newest); with no step samples, no days. `tz` defaults to UTC.",
        "parameters": [
          {
            "$ref": "#/components/parameters/dayFrom"
          },
          {
            "$ref": "#/components/parameters/dayTo"
          },
          {
            "$ref": "#/components/parameters/tz"
          },
          {
            "$ref": "#/components/parameters/priority"
          }
        ],
        "responses": {
          "200": {
            "description": "One entry per day, in order.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/DailySteps"
                },
                "example": {
                  "tz": "Europe/Berlin",
                  "from": "2025-05-11",
                  "to": "2025-05-11",
                  "unmatched": [],
                  "days": [
                    {
                      "date": "2025-05-11",
                      "steps": 8123
                    }
                  ]
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          },
          "503": {
            "$ref": "#/components/responses/Unavailable"
          }
        }
      }
    },
    "/samples": {
      "get": {
        "operationId": "listSamples",
        "summary": "A page of one type's samples, in arrival order",
        "parameters": [
          {
            "$ref": "#/components/parameters/requiredType"
          },
          {
            "$ref": "#/components/parameters/limit"
          },
          {
            "$ref": "#/components/parameters/cursor"
          },
          {
            "$ref": "#/components/parameters/from"
          },
          {
            "$ref": "#/components/parameters/to"
          }
        ],
        "responses": {
          "200": {
            "description": "A page.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/SamplePage"
                },
                "example": {
                  "storedCount": 1,
                  "samples": [
                    {
                      "uuid": "0B1E6A4C-8F8E-4C1F-9B7A-2B7E3C1D5A10",
                      "type": "HKQuantityTypeIdentifierHeartRate",
                      "startDate": "2025-05-11T16:27:22.000Z",
                      "endDate": "2025-05-11T16:27:22.000Z",
                      "value": 72,
                      "unit": "count/min",
                      "sourceName": "Anna's Apple Watch",
                      "sourceBundleId": "com.apple.health",
                      "sourceDeviceName": "Apple Watch",
                      "details": {
                        "metadata": {
                          "HKMetadataKeyHeartRateMotionContext": "1"
                        }
                      }
                    }
                  ],
                  "nextCursor": null
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          },
          "503": {
            "$ref": "#/components/responses/Unavailable"
          }
        }
      },
      "post": {
        "operationId": "postSamples",
        "summary": "Store samples of any type",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/SamplesRequest"
              },
              "example": {
                "samples": [
                  {
                    "uuid": "0B1E6A4C-8F8E-4C1F-9B7A-2B7E3C1D5A10",
                    "type": "HKQuantityTypeIdentifierHeartRate",
                    "startDate": "2025-05-11T16:27:22.000Z",
                    "endDate": "2025-05-11T16:27:22.000Z",
                    "value": 72,
                    "unit": "count/min",
                    "sourceName": "Anna's Apple Watch",
                    "sourceBundleId": "com.apple.health",
                    "sourceDeviceName": "Apple Watch",
                    "details": {
                      "metadata": {
                        "HKMetadataKeyHeartRateMotionContext": "1"
                      }
                    }
                  }
                ]
              }
            }
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/contentEncoding"
          }
        ],
        "responses": {
          "200": {
            "description": "Every sample is stored or was already stored (durable before this answer).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Saved"
                },
                "example": {
                  "saved": 1,
                  "message": "Success",
                  "inserted": 1,
                  "duplicates": 0
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "415": {
            "$ref": "#/components/responses/UnsupportedMediaType"
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          },
          "503": {
            "$ref": "#/components/responses/Unavailable"
          }
        }
      },
      "delete": {
        "operationId": "clearSamples",
        "summary": "Delete every sample of one type, or of every type",
        "parameters": [
          {
            "$ref": "#/components/parameters/optionalType"
          }
        ],
        "responses": {
          "200": {
            "description": "The samples are deleted (durable).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Cleared"
                },
                "example": {
                  "message": "Deleted 3 samples",
                  "deleted": 3
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          },
          "503": {
            "$ref": "#/components/responses/Unavailable"
          }
        }
      }
    },
    "/samples/types": {
      "get": {
        "operationId": "sampleTypes",
        "summary": "How many samples are stored per type",
        "responses": {
          "200": {
            "description": "Types with samples and their counts.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/TypeCounts"
                },
                "example": {
                  "types": {
                    "HKQuantityTypeIdentifierStepCount": 1
                  }
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          },
          "503": {
            "$ref": "#/components/responses/Unavailable"
          }
        }
      }
    },
    "/samples/delete": {
      "post": {
        "operationId": "deleteSamples",
        "summary": "Delete samples of one type by uuid",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/DeleteSamplesRequest"
              },
              "example": {
                "type": "HKQuantityTypeIdentifierHeartRate",
                "uuids": [
                  "D67311EE-FACB-41AA-B202-8D266F3EDE18"
                ]
              }
            }
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/contentEncoding"
          }
        ],
        "responses": {
          "200": {
            "description": "The samples found are deleted (tombstones, durable).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/DeleteOutcome"
                },
                "example": {
                  "deleted": 1,
                  "missing": 0
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "415": {
            "$ref": "#/components/responses/UnsupportedMediaType"
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          },
          "503": {
            "$ref": "#/components/responses/Unavailable"
          }
        }
      }
    },
    "/stats": {
      "get": {
        "operationId": "stats",
        "summary": "What the dashboard shows: counts, activity, storage",
        "responses": {
          "200": {
            "description": "The sink's counts since the files were written, its activity since it started, and its storage.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Stats"
                },
                "example": {
                  "samples": {
                    "total": 1,
                    "steps": 1,
                    "types": {
                      "HKQuantityTypeIdentifierStepCount": 1
                    },
                    "firstStepStart": "2025-05-11T16:27:22.000Z",
                    "lastStepStart": "2025-05-11T16:27:22.000Z"
                  },
                  "activity": {
                    "startedAt": "2025-05-11T16:00:00.000Z",
                    "requests": 3,
                    "errors": 0,
                    "ingests": 1,
                    "inserted": 1,
                    "duplicates": 0,
                    "lastIngest": "2025-05-11T16:30:00.000Z",
                    "lastRequest": "2025-05-11T16:30:00.000Z"
                  },
                  "storage": {
                    "kind": "jsonl",
                    "location": "/data/steps.jsonl",
                    "files": [
                      {
                        "name": "/data/steps.jsonl",
                        "bytes": 190
                      }
                    ],
                    "totalBytes": 190,
                    "status": "ok",
                    "reason": null
                  }
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "421": {
            "$ref": "#/components/responses/MisdirectedHost"
          },
          "503": {
            "$ref": "#/components/responses/Unavailable"
          }
        }
      }
    }
  },
  "components": {
    "securitySchemes": {
      "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "description": "`stepsync serve --token` (or STEPSYNC_TOKEN)."
      }
    },
    "headers": {
      "RetryAfter": {
        "description": "Seconds to wait before retrying.",
        "schema": {
          "type": "string",
          "pattern": "^[0-9]+$"
        }
      }
    },
    "parameters": {
      "limit": {
        "name": "limit",
        "in": "query",
        "description": "Samples per page (default 1,000; at most 10,000 are given).",
        "schema": {
          "type": "integer",
          "minimum": 1
        }
      },
      "cursor": {
        "name": "cursor",
        "in": "query",
        "description": "The previous page's `nextCursor`.",
        "schema": {
          "type": "string"
        }
      },
      "from": {
        "name": "from",
        "in": "query",
        "description": "Only samples starting at or after this instant (ISO 8601).",
        "schema": {
          "type": "string",
          "format": "date-time"
        }
      },
      "to": {
        "name": "to",
        "in": "query",
        "description": "Only samples starting before this instant (ISO 8601).",
        "schema": {
          "type": "string",
          "format": "date-time"
        }
      },
      "dayFrom": {
        "name": "from",
        "in": "query",
        "description": "The first local day, YYYY-MM-DD.",
        "schema": {
          "type": "string",
          "format": "date"
        }
      },
      "dayTo": {
        "name": "to",
        "in": "query",
        "description": "The last local day (inclusive), YYYY-MM-DD.",
        "schema": {
          "type": "string",
          "format": "date"
        }
      },
      "tz": {
        "name": "tz",
        "in": "query",
        "description": "An IANA time zone (default UTC).",
        "schema": {
          "type": "string",
          "examples": [
            "Europe/Berlin"
          ]
        }
      },
      "priority": {
        "name": "priority",
        "in": "query",
        "description": "Device names, highest first, comma-separated (default `Apple Watch,iPhone`), matched case-insensitively; form-encoded like every query parameter (`Apple+Watch` and `Apple%20Watch` are the same). Names that match no device of the days are listed in the answer's `unmatched`.",
        "schema": {
          "type": "string"
        }
      },
      "requiredType": {
        "name": "type",
        "in": "query",
        "required": true,
        "description": "A HealthKit type identifier.",
        "schema": {
          "type": "string",
          "examples": [
            "HKQuantityTypeIdentifierHeartRate"
          ]
        }
      },
      "optionalType": {
        "name": "type",
        "in": "query",
        "description": "A HealthKit type identifier (all types when absent).",
        "schema": {
          "type": "string"
        }
      },
      "contentEncoding": {
        "name": "Content-Encoding",
        "in": "header",
        "description": "`gzip` or absent.",
        "schema": {
          "type": "string",
          "enum": [
            "gzip",
            "identity"
          ]
        }
      }
    },
    "responses": {
      "BadRequest": {
        "description": "The request is refused whole, nothing written; `error` names the problem (a sample problem such as `instant_out_of_range`, or `malformed_json`, `invalid_text` for a string that is not UTF-8 or holds a lone surrogate escape, `bad_request` for a gzip body cut short, corrupt or followed by bytes, …), `field` and `index` point at it.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "Unauthorized": {
        "description": "The sink has a token and the request did not carry it.",
        "headers": {
          "WWW-Authenticate": {
            "schema": {
              "type": "string"
            }
          }
        },
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "MisdirectedHost": {
        "description": "A loopback sink asked for another Host (DNS rebinding).",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "TooLarge": {
        "description": "The body (as sent or inflated) is over the limit.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "UnsupportedMediaType": {
        "description": "Content-Type is not application/json, or Content-Encoding not gzip.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "Unavailable": {
        "description": "The storage cannot write now, or request bodies hold the memory budget: nothing was acknowledged; retry after `Retry-After` seconds.",
        "headers": {
          "Retry-After": {
            "$ref": "#/components/headers/RetryAfter"
          }
        },
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      }
    },
    "schemas": {
      "Error": {
        "type": "object",
        "required": [
          "error",
          "message"
        ],
        "properties": {
          "error": {
            "type": "string"
          },
          "message": {
            "type": "string"
          },
          "index": {
            "type": "integer",
            "minimum": 0
          },
          "field": {
            "type": "string"
          }
        }
      },
      "Health": {
        "type": "object",
        "required": [
          "status"
        ],
        "properties": {
          "status": {
            "enum": [
              "ok",
              "degraded"
            ]
          },
          "reason": {
            "type": "string"
          },
          "since": {
            "type": "number"
          },
          "service": {
            "const": "stepsync",
            "description": "Names the server as a stepsync sink (the sync checks it before sending)."
          },
          "api": {
            "type": "integer",
            "description": "The version of the sink's API."
          }
        }
      },
      "Instant": {
        "type": "string",
        "format": "date-time",
        "description": "ISO 8601; 0001-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z.",
        "examples": [
          "2025-05-11T16:27:22.000Z"
        ]
      },
      "UUID": {
        "type": "string",
        "format": "uuid"
      },
      "StepSample": {
        "type": "object",
        "required": [
          "uuid",
          "startDate",
          "endDate",
          "count",
          "sourceBundleId"
        ],
        "properties": {
          "uuid": {
            "$ref": "#/components/schemas/UUID"
          },
          "startDate": {
            "$ref": "#/components/schemas/Instant"
          },
          "endDate": {
            "$ref": "#/components/schemas/Instant"
          },
          "count": {
            "type": "number",
            "minimum": 0,
            "maximum": 1000000
          },
          "sourceBundleId": {
            "type": "string"
          },
          "sourceDeviceName": {
            "type": [
              "string",
              "null"
            ]
          },
          "sourceName": {
            "type": "string"
          },
          "unit": {
            "type": "string"
          },
          "sourceVersion": {
            "type": [
              "string",
              "null"
            ]
          },
          "deviceModel": {
            "type": [
              "string",
              "null"
            ]
          },
          "details": {
            "type": [
              "object",
              "null"
            ]
          }
        }
      },
      "Sample": {
        "type": "object",
        "required": [
          "uuid",
          "type",
          "startDate",
          "endDate",
          "value",
          "unit",
          "sourceName",
          "sourceBundleId"
        ],
        "properties": {
          "uuid": {
            "$ref": "#/components/schemas/UUID"
          },
          "type": {
            "type": "string",
            "examples": [
              "HKQuantityTypeIdentifierHeartRate"
            ]
          },
          "startDate": {
            "$ref": "#/components/schemas/Instant"
          },
          "endDate": {
            "$ref": "#/components/schemas/Instant"
          },
          "value": {
            "type": "number"
          },
          "unit": {
            "type": "string"
          },
          "sourceName": {
            "type": "string"
          },
          "sourceBundleId": {
            "type": "string"
          },
          "sourceDeviceName": {
            "type": [
              "string",
              "null"
            ]
          },
          "sourceVersion": {
            "type": [
              "string",
              "null"
            ]
          },
          "deviceModel": {
            "type": [
              "string",
              "null"
            ]
          },
          "details": {
            "type": [
              "object",
              "null"
            ],
            "description": "Type-specific fields, stored verbatim."
          }
        }
      },
      "StepsRequest": {
        "type": "object",
        "required": [
          "samples"
        ],
        "properties": {
          "samples": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/StepSample"
            }
          }
        }
      },
      "SamplesRequest": {
        "type": "object",
        "required": [
          "samples"
        ],
        "properties": {
          "samples": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Sample"
            }
          }
        }
      },
      "DeleteStepsRequest": {
        "type": "object",
        "required": [
          "uuids"
        ],
        "properties": {
          "uuids": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/UUID"
            }
          }
        }
      },
      "DeleteSamplesRequest": {
        "type": "object",
        "required": [
          "type",
          "uuids"
        ],
        "properties": {
          "type": {
            "type": "string"
          },
          "uuids": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/UUID"
            }
          }
        }
      },
      "Saved": {
        "type": "object",
        "required": [
          "saved",
          "message",
          "inserted",
          "duplicates"
        ],
        "properties": {
          "saved": {
            "type": "integer",
            "minimum": 0
          },
          "message": {
            "const": "Success"
          },
          "inserted": {
            "type": "integer",
            "minimum": 0
          },
          "duplicates": {
            "type": "integer",
            "minimum": 0
          }
        }
      },
      "Cleared": {
        "type": "object",
        "required": [
          "message",
          "deleted"
        ],
        "properties": {
          "message": {
            "type": "string"
          },
          "deleted": {
            "type": "integer",
            "minimum": 0
          }
        }
      },
      "DeleteOutcome": {
        "type": "object",
        "required": [
          "deleted",
          "missing"
        ],
        "properties": {
          "deleted": {
            "type": "integer",
            "minimum": 0
          },
          "missing": {
            "type": "integer",
            "minimum": 0
          }
        }
      },
      "StepPage": {
        "type": "object",
        "required": [
          "storedCount",
          "samples",
          "nextCursor"
        ],
        "properties": {
          "storedCount": {
            "type": "integer",
            "minimum": 0
          },
          "samples": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/StepSample"
            }
          },
          "nextCursor": {
            "type": [
              "string",
              "null"
            ]
          }
        }
      },
      "SamplePage": {
        "type": "object",
        "required": [
          "storedCount",
          "samples",
          "nextCursor"
        ],
        "properties": {
          "storedCount": {
            "type": "integer",
            "minimum": 0
          },
          "samples": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Sample"
            }
          },
          "nextCursor": {
            "type": [
              "string",
              "null"
            ]
          }
        }
      },
      "TypeCounts": {
        "type": "object",
        "required": [
          "types"
        ],
        "properties": {
          "types": {
            "type": "object",
            "additionalProperties": {
              "type": "integer",
              "minimum": 1
            }
          }
        }
      },
      "DailySteps": {
        "type": "object",
        "required": [
          "tz",
          "from",
          "to",
          "unmatched",
          "days"
        ],
        "properties": {
          "tz": {
            "type": "string"
          },
          "from": {
            "type": [
              "string",
              "null"
            ],
            "format": "date",
            "description": "The first day answered: the request's from, or, without from and to, the first stored day (at most 3,700 days before the last); null when there is none."
          },
          "to": {
            "type": [
              "string",
              "null"
            ],
            "format": "date",
            "description": "The last day answered; null when there is none."
          },
          "unmatched": {
            "type": "array",
            "items": {
              "type": "string"
            },
            "description": "The priority's device names that no step sample of these days came from."
          },
          "days": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "date",
                "steps"
              ],
              "properties": {
                "date": {
                  "type": "string",
                  "format": "date"
                },
                "steps": {
                  "type": "integer",
                  "minimum": 0
                }
              }
            }
          }
        }
      },
      "NullableInstant": {
        "oneOf": [
          {
            "$ref": "#/components/schemas/Instant"
          },
          {
            "type": "null"
          }
        ]
      },
      "Stats": {
        "type": "object",
        "required": [
          "samples",
          "activity",
          "storage"
        ],
        "properties": {
          "samples": {
            "type": "object",
            "required": [
              "total",
              "steps",
              "types",
              "firstStepStart",
              "lastStepStart"
            ],
            "properties": {
              "total": {
                "type": "integer",
                "minimum": 0
              },
              "steps": {
                "type": "integer",
                "minimum": 0
              },
              "types": {
                "type": "object",
                "additionalProperties": {
                  "type": "integer",
                  "minimum": 1
                }
              },
              "firstStepStart": {
                "$ref": "#/components/schemas/NullableInstant"
              },
              "lastStepStart": {
                "$ref": "#/components/schemas/NullableInstant"
              }
            }
          },
          "activity": {
            "type": "object",
            "required": [
              "startedAt",
              "requests",
              "errors",
              "ingests",
              "inserted",
              "duplicates",
              "lastIngest",
              "lastRequest"
            ],
            "properties": {
              "startedAt": {
                "$ref": "#/components/schemas/Instant"
              },
              "requests": {
                "type": "integer",
                "minimum": 0
              },
              "errors": {
                "type": "integer",
                "minimum": 0
              },
              "ingests": {
                "type": "integer",
                "minimum": 0
              },
              "inserted": {
                "type": "integer",
                "minimum": 0
              },
              "duplicates": {
                "type": "integer",
                "minimum": 0
              },
              "lastIngest": {
                "$ref": "#/components/schemas/NullableInstant"
              },
              "lastRequest": {
                "$ref": "#/components/schemas/NullableInstant"
              }
            }
          },
          "storage": {
            "type": "object",
            "required": [
              "kind",
              "location",
              "files",
              "totalBytes",
              "status",
              "reason"
            ],
            "properties": {
              "kind": {
                "enum": [
                  "jsonl",
                  "postgresql"
                ]
              },
              "location": {
                "type": "string"
              },
              "files": {
                "type": "array",
                "items": {
                  "type": "object",
                  "required": [
                    "name",
                    "bytes"
                  ],
                  "properties": {
                    "name": {
                      "type": "string"
                    },
                    "bytes": {
                      "type": "integer",
                      "minimum": 0
                    }
                  }
                }
              },
              "totalBytes": {
                "type": "integer",
                "minimum": 0
              },
              "status": {
                "enum": [
                  "ok",
                  "degraded"
                ]
              },
              "reason": {
                "type": [
                  "string",
                  "null"
                ]
              }
            }
          }
        }
      }
    }
  }
}
"""#
}
